import { sql, type Kysely, type Selectable } from 'kysely';
import type { TenantTables } from '@pos/db';
import type { FiscalDrawer } from '@pos/fiscal';
import { errors } from '@pos/kernel';
import { expectedCash, type TillMode, type TillState } from '@pos/domain/tills/till-rules';
import type { Cents } from '@pos/domain/money';
import { isUuidText } from '../orders/order-queries.ts';
import type { RegisterActor } from '../register-actor.ts';

/** A `pos_tills` row. */
export type TillRow = Selectable<TenantTables['pos_tills']>;

/** Any tenant-bound database or transaction. */
type Db = Kysely<TenantTables>;

/**
 * The till's drawer (spec 2 "Till and related", TillDrawer): its frozen fiscal identity, rendered
 * verbatim. `id` and `name` are the drawer's `fiscal_identity` (`drawerId`, `drawerName`), `kind`
 * the drawer's kind. A staff_wallet till has a virtual drawer derived from the member (see
 * `walletDrawer`). Frozen on the till when it opens (`pos_tills.drawer_snapshot`).
 */
export interface TillDrawer {
  readonly id: string;
  readonly name: string;
  readonly kind: 'physical' | 'virtual';
}

/** The bare till resource (spec 2 till rule 1: `id` and `mode` are strings). */
export interface TillResource {
  id: string;
  mode: TillMode;
  state: TillState;
  drawer: TillDrawer;
  /** Cents. */
  opening_float: Cents;
  opened_at: string;
  staff: { id: string; name: string | null };
}

/** 404 for an unknown till or a till of another location (another merchant's lives in another schema). */
export const tillNotFound = () => errors.notFound('till');

const parse = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** The drawer a till froze when it opened. */
export function tillDrawer(row: Pick<TillRow, 'drawer_snapshot'>): TillDrawer {
  const d = parse<Partial<TillDrawer>>(row.drawer_snapshot) ?? {};
  return { id: String(d.id ?? ''), name: String(d.name ?? ''), kind: d.kind === 'virtual' ? 'virtual' : 'physical' };
}

/** The drawer identity signed in fiscal events (`financials[].drawer`, money in/out, drawer open). */
export function fiscalDrawerOf(row: Pick<TillRow, 'drawer_snapshot'>): FiscalDrawer {
  const d = tillDrawer(row);
  return { drawerId: d.id, drawerName: d.name };
}

/**
 * A drawers row rendered as a TillDrawer: its frozen `fiscal_identity` verbatim (the identity the
 * migration derives, `{drawerId: id, drawerName: name}`, when a row has none).
 */
export function drawerIdentity(row: { id: string; name: string; kind: 'physical' | 'virtual'; fiscal_identity: unknown }): TillDrawer {
  const fi = parse<{ drawerId?: unknown; drawerName?: unknown } | null>(row.fiscal_identity);
  return {
    id: typeof fi?.drawerId === 'string' ? fi.drawerId : row.id,
    name: typeof fi?.drawerName === 'string' ? fi.drawerName : row.name,
    kind: row.kind,
  };
}

/**
 * The virtual drawer of a staff_wallet till: the cash lives in the member's own wallet, so the
 * identity is derived from the member (`wallet:<staff id>`, `Wallet <name>`) and frozen at open.
 */
export function walletDrawer(staff: { id: string; name: string }): TillDrawer {
  return { id: `wallet:${staff.id}`, name: `Wallet ${staff.name}`, kind: 'virtual' };
}

/** Maps a row (and its member's name) to the bare till resource. */
export function toTillResource(row: TillRow, staffName: string | null): TillResource {
  return {
    id: row.id,
    mode: row.mode,
    state: row.state,
    drawer: tillDrawer(row),
    opening_float: row.opening_float,
    opened_at: new Date(row.opened_at).toISOString(),
    staff: { id: row.staff_id, name: staffName },
  };
}

/** The bare resource of a till row (reads its member's current name). */
export async function tillResource(db: Db, row: TillRow): Promise<TillResource> {
  const staff = await db.selectFrom('staff_credentials').select('name').where('id', '=', row.staff_id).executeTakeFirst();
  return toTillResource(row, staff?.name ?? null);
}

/** The till `tillId` of the location, optionally locked FOR UPDATE, else null. */
export async function findLocationTill(db: Db, locationId: string, tillId: string, opts: { lock?: boolean } = {}): Promise<TillRow | null> {
  if (!isUuidText(tillId)) return null;
  let q = db.selectFrom('pos_tills').selectAll().where('id', '=', tillId).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  return (await q.executeTakeFirst()) ?? null;
}

/** Like `findLocationTill`, 404 when absent. */
export async function requireLocationTill(db: Db, locationId: string, tillId: string, opts: { lock?: boolean } = {}): Promise<TillRow> {
  const row = await findLocationTill(db, locationId, tillId, opts);
  if (!row) throw tillNotFound();
  return row;
}

/**
 * The till that takes (and hands back) cash for `actor`, or null: the member's own OPEN
 * staff_wallet till at this location first, else this register's OPEN register_drawer till. An
 * ended till takes no cash. `lock: 'share'` holds the row until commit, so the till cannot end
 * (or be counted) while a sale or refund is being booked to it.
 */
export async function findTakingTill(db: Db, actor: RegisterActor, opts: { lock?: 'share' } = {}): Promise<TillRow | null> {
  return findActorTill(db, actor, ['open'], opts);
}

/** The member's staff_wallet till, else the register's register_drawer till, in one of `states`. */
export async function findActorTill(db: Db, actor: RegisterActor, states: readonly TillState[], opts: { lock?: 'share' } = {}): Promise<TillRow | null> {
  let wallet = db
    .selectFrom('pos_tills')
    .selectAll()
    .where('location_id', '=', actor.locationId)
    .where('mode', '=', 'staff_wallet')
    .where('staff_id', '=', actor.staffId)
    .where('state', 'in', [...states])
    .orderBy('opened_at', 'desc')
    .limit(1);
  if (opts.lock === 'share') wallet = wallet.forShare();
  const own = await wallet.executeTakeFirst();
  if (own) return own;
  let drawer = db
    .selectFrom('pos_tills')
    .selectAll()
    .where('location_id', '=', actor.locationId)
    .where('mode', '=', 'register_drawer')
    .where('device_id', '=', actor.deviceId)
    .where('state', 'in', [...states])
    .orderBy('opened_at', 'desc')
    .limit(1);
  if (opts.lock === 'share') drawer = drawer.forShare();
  return (await drawer.executeTakeFirst()) ?? null;
}

/** The unclosed till at the location whose frozen drawer identity is `drawerId` (remote settle finishing). */
export async function findTillByDrawer(db: Db, locationId: string, drawerId: string): Promise<TillRow | null> {
  const row = await db
    .selectFrom('pos_tills')
    .selectAll()
    .where('location_id', '=', locationId)
    .where('state', '<>', 'closed')
    .where(sql<string>`drawer_snapshot->>'id'`, '=', drawerId)
    .orderBy('opened_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** The cash a till took on sales: the cash legs' `amount` (what the sale keeps: tendered minus change, rounded). */
export function cashKept(tender: unknown): Cents {
  const t = parse<{ legs?: unknown } | null>(tender);
  if (!t || !Array.isArray(t.legs)) return 0;
  let cash = 0;
  for (const leg of t.legs as unknown[]) {
    if (leg && typeof leg === 'object' && (leg as { kind?: unknown }).kind === 'cash') {
      const amount = (leg as { amount?: unknown }).amount;
      if (typeof amount === 'number' && Number.isSafeInteger(amount)) cash += amount;
    }
  }
  return cash;
}

/** The parts of a till's expected cash, each in cents. */
export interface TillCash {
  readonly opening_float: Cents;
  readonly cash_sales_net: Cents;
  readonly refunds_cash: Cents;
  readonly movements: Cents;
  readonly expected: Cents;
}

/**
 * Expected cash of a till (domain `expectedCash`): opening float + the cash legs of the sales booked
 * to it (`pos_transactions.till_id`; a cash leg's amount is what the drawer keeps, change already
 * given back) - the cash refunds paid out of it (`pos_refunds.till_id`) + its movements signed by
 * direction (a no-sale moves nothing).
 */
export async function tillCash(db: Db, till: Pick<TillRow, 'id' | 'opening_float'>): Promise<TillCash> {
  const sales = await db.selectFrom('pos_transactions').select('tender').where('till_id', '=', till.id).execute();
  const refunds = await db.selectFrom('pos_refunds').select(['amount', 'rounding']).where('till_id', '=', till.id).execute();
  const movements = await db.selectFrom('pos_till_movements').select(['type', 'amount']).where('till_id', '=', till.id).execute();
  const cash_sales_net = sales.reduce((s, r) => s + cashKept(r.tender), 0);
  // The cash handed back: the refunded lines less the sale's rounding the refund settled.
  const refunds_cash = refunds.reduce((s, r) => s + r.amount - r.rounding, 0);
  const expected = expectedCash({ opening_float: till.opening_float, cash_sales_net, refunds_cash, movements });
  return { opening_float: till.opening_float, cash_sales_net, refunds_cash, movements: expected - till.opening_float - cash_sales_net + refunds_cash, expected };
}

export const TILL_CASH_PENDING_MESSAGE = 'Cash of this till is still waiting for the fiscal data module: count the till once it is signed.';

/**
 * True while cash booked to this till waits for a remote fiscal module (a pending journal entry): a
 * movement or a refund of the till, or a cash sale whose signed cash line names the till's drawer
 * (a SETTLING sale is booked to the till only once signed). Its refusal would take it back, its
 * signature would book it: either way the expected cash is not final yet.
 */
export async function tillCashPending(db: Db, till: Pick<TillRow, 'id' | 'location_id' | 'drawer_snapshot'>): Promise<boolean> {
  const drawerId = tillDrawer(till).id;
  const row = await db
    .selectFrom('fiscal_journal')
    .select('id')
    .where('location_id', '=', till.location_id)
    .where('status', '=', 'pending')
    .where((eb) =>
      eb.or([
        eb.and([eb('subject_type', '=', 'pos_till_movement'), eb('subject_id', 'in', eb.selectFrom('pos_till_movements').select(sql<string>`id::text`.as('id')).where('till_id', '=', till.id))]),
        eb.and([eb('subject_type', '=', 'pos_refund'), eb('subject_id', 'in', eb.selectFrom('pos_refunds').select(sql<string>`id::text`.as('id')).where('till_id', '=', till.id))]),
        eb.and([
          eb('subject_type', '=', 'pos_order'),
          sql<boolean>`exists (select 1 from jsonb_array_elements(coalesce(payload::jsonb -> 'financials', '[]'::jsonb)) f where f->>'type' = 'CASH' and f->'drawer'->>'drawerId' = ${drawerId})`,
        ]),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** True for a Postgres unique violation (optionally of one constraint or index); defined in `@pos/db`. */
export { isUniqueViolation } from '@pos/db';
