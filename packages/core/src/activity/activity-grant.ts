import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { TenantTables } from '@pos/db';

/**
 * Which activity entries belong to a location, so a member granted some locations reads only theirs
 * (spec 5.8: permissions are scoped to the granted locations). An entry is a location's when:
 * - its properties name it: `location_id`, or any of `location_ids` (a member's grant);
 * - its subject is the location itself (location, its receipt settings, its loyalty program: the
 *   subject id is the location id);
 * - its subject is a record of one location (device, station, register, drawer, fiscal module,
 *   register order, table section, table session, billing subscription): that record's location.
 * Any other entry (roles, team, catalog, profiles, billing profiles) is merchant-wide and shown to every
 * holder of VIEW_ACTIVITY_LOGS. A record gone since counts as merchant-wide, except a table session's
 * closure written before it named its `location_id` (`UNPLACED_HIDDEN`): it is hidden (a closure is
 * never merchant-wide, and its session goes with its section).
 */
export const LOCATION_SUBJECTS = ['location', 'receipt', 'loyalty_program'] as const;

/** Subject -> the tenant table holding the record (every one has `id` and `location_id`). */
export const LOCATED_SUBJECTS = {
  device: 'devices',
  station: 'kitchen_stations',
  pos_register: 'pos_registers',
  drawer: 'drawers',
  fdm_device: 'fdm_devices',
  pos_order: 'pos_orders',
  'table section': 'table_sections',
  'table session': 'table_sessions',
  billing_subscription: 'billing_subscriptions',
} as const satisfies Record<string, keyof TenantTables>;

/** Located subjects whose entry, naming no `location_id` and its record gone, is hidden from a member without every location. */
const UNPLACED_HIDDEN = ['table session'] as const satisfies readonly (keyof typeof LOCATED_SUBJECTS)[];

const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * SQL condition: the `activity_logs` entry is tied to no location outside `granted` (the caller's
 * location ids). A record is looked up by primary key, only for an entry of its subject (a `case`
 * runs the lookup for those rows alone, never over a whole table of orders); its location is read
 * now, so a device moved since is judged where it is (and its `created` entry by its `location_id`).
 */
export function withinGrant(eb: ExpressionBuilder<TenantTables, 'activity_logs'>, granted: readonly string[]): Expression<SqlBool> {
  const g = sql`${[...granted]}::text[]`;
  const conditions: Expression<SqlBool>[] = [
    sql<SqlBool>`coalesce((activity_logs.properties->>'location_id') = any(${g}), true)`,
    sql<SqlBool>`case when jsonb_typeof(activity_logs.properties->'location_ids') = 'array'
      then not exists (select 1 from jsonb_array_elements_text(activity_logs.properties->'location_ids') as l(id) where not (l.id = any(${g})))
      else true end`,
    eb.or([eb('subject', 'not in', [...LOCATION_SUBJECTS]), eb('subject_id', 'is', null), sql<SqlBool>`activity_logs.subject_id = any(${g})`]),
  ];
  for (const [subject, table] of Object.entries(LOCATED_SUBJECTS)) {
    const outside = eb
      .selectFrom(`${table as 'devices'} as r`)
      .select(sql<number>`1`.as('one'))
      .where(sql<SqlBool>`r.id = activity_logs.subject_id::uuid and not (r.location_id::text = any(${g}))`);
    conditions.push(sql<SqlBool>`case when activity_logs.subject = ${subject} and activity_logs.subject_id ~ ${UUID_TEXT} then not exists (${outside}) else true end`);
  }
  for (const subject of UNPLACED_HIDDEN) {
    const table = LOCATED_SUBJECTS[subject];
    const found = eb.selectFrom(`${table as 'devices'} as r`).select(sql<number>`1`.as('one')).where(sql<SqlBool>`r.id = activity_logs.subject_id::uuid`);
    conditions.push(
      sql<SqlBool>`case when activity_logs.subject = ${subject} and activity_logs.properties->>'location_id' is null
        then (case when activity_logs.subject_id ~ ${UUID_TEXT} then exists (${found}) else false end) else true end`,
    );
  }
  return eb.and(conditions);
}
