import type { ExpressionBuilder, Selectable } from 'kysely';
import { TABLE_SESSION_IDLE_MS } from '@pos/domain/table-qr/table-session-idle';
import { errors } from '@pos/kernel';
import type { CentralDb, TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { findLocation, inMerchantTx, requireLocationAccess, type BackofficeScope } from '../devices/device-records.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Table sections (spec 1 "Online ordering and table QR ordering", `/table-sections`): a named group of
 * tables numbered 1..`tables` at a location; each table has a QR code pointing at the scan route. The
 * central `table_qr_directory` row lets an unauthenticated scan find the merchant of a section.
 * Spec 1 lists these routes with no permission ("-"): only the location grant is checked.
 */

export type TableSectionRow = Selectable<TenantTables['table_sections']>;

/** A section holds at most this many tables (a QR sheet per table is generated on demand). */
export const MAX_TABLES = 500;

export interface TableSectionView {
  id: string;
  location_id: string;
  name: string;
  tables: number;
  /** Open table sessions of the section. */
  open_sessions: number;
  created_at: string;
  updated_at: string;
}

/**
 * A session still in use: open and not idle (`tableSessionIdle`: nothing ordered at it, nor scanned open,
 * for `TABLE_SESSION_IDLE_MS`). An idle one is over; it is closed by whatever touches it next.
 */
function liveSession(now: Date) {
  const since = new Date(now.getTime() - TABLE_SESSION_IDLE_MS);
  return (eb: ExpressionBuilder<TenantTables, 'table_sessions'>) =>
    eb.and([
      eb('table_sessions.status', '=', 'open'),
      eb.or([
        eb('table_sessions.opened_at', '>', since),
        eb.exists(eb.selectFrom('transactions').select('transactions.id').whereRef('transactions.table_session_id', '=', 'table_sessions.id').where('transactions.completed_at', '>', since)),
      ]),
    ]);
}

async function present(tdb: TenantDb | TenantTx, rows: TableSectionRow[], now = new Date()): Promise<TableSectionView[]> {
  const ids = rows.map((r) => r.id);
  const open = ids.length
    ? await tdb
        .selectFrom('table_sessions')
        .select((eb) => ['table_section_id', eb.fn.countAll<string>().as('n')])
        .where('table_section_id', 'in', ids)
        .where(liveSession(now))
        .groupBy('table_section_id')
        .execute()
    : [];
  return rows.map((r) => ({
    id: r.id,
    location_id: r.location_id,
    name: r.name,
    tables: r.tables,
    open_sessions: Number(open.find((o) => o.table_section_id === r.id)?.n ?? 0),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  }));
}

/** A table section of the bound merchant, or 404 `Unable to locate the table section you requested.` */
export async function findTableSection(tdb: TenantDb | TenantTx, id: string): Promise<TableSectionRow> {
  const row = isUuid(id) ? await tdb.selectFrom('table_sections').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!row) throw errors.notFound('table section');
  return row;
}

export interface CreateTableSectionInput {
  location_id: string;
  name: string;
  tables: number;
}

/** `POST /table-sections`: the section and its central directory row. */
export async function createTableSection(scope: BackofficeScope, input: CreateTableSectionInput): Promise<TableSectionView> {
  await findLocation(scope.tdb, input.location_id);
  requireLocationAccess(scope.access, input.location_id);
  const id = Bun.randomUUIDv7();
  // The section and its directory row commit together: a scan never finds one without the other.
  const row = await inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant: tx }) => {
    await lockLocation(tx, input.location_id, 'key share');
    const created = await tx
      .insertInto('table_sections')
      .values({ id, location_id: input.location_id, name: input.name.trim(), tables: input.tables, created_at: scope.now, updated_at: scope.now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'table section', subjectId: id, properties: { location_id: input.location_id, name: created.name, tables: created.tables } });
    await registerSection(central as unknown as CentralDb, scope.merchant.id, created);
    return created;
  });
  return (await present(scope.tdb, [row]))[0]!;
}

/** Central directory row of a section (idempotent; the demo seed uses it too). */
export async function registerSection(db: CentralDb, merchantId: string, row: { id: string; location_id: string }): Promise<void> {
  await db.insertInto('table_qr_directory').values({ table_section_id: row.id, merchant_id: merchantId, location_id: row.location_id }).onConflict((oc) => oc.column('table_section_id').doNothing()).execute();
}

/** `GET /table-sections/location/{locationId}`: the location's sections by name. */
export async function listTableSections(scope: BackofficeScope, locationId: string): Promise<TableSectionView[]> {
  await findLocation(scope.tdb, locationId);
  requireLocationAccess(scope.access, locationId);
  const rows = await scope.tdb.selectFrom('table_sections').selectAll().where('location_id', '=', locationId).orderBy('name').orderBy('id').execute();
  return present(scope.tdb, rows);
}

/** `GET /table-sections/{id}`. */
export async function getTableSection(scope: BackofficeScope, id: string): Promise<TableSectionView> {
  const row = await findTableSection(scope.tdb, id);
  requireLocationAccess(scope.access, row.location_id);
  return (await present(scope.tdb, [row]))[0]!;
}

export interface UpdateTableSectionInput {
  name?: string;
  tables?: number;
}

export const TABLES_IN_USE = 'The section has an open session at a table above the new number of tables.';

/** `PUT /table-sections/{id}`: name and number of tables; the location never changes. */
export async function updateTableSection(scope: BackofficeScope, id: string, input: UpdateTableSectionInput): Promise<TableSectionView> {
  const existing = await findTableSection(scope.tdb, id);
  requireLocationAccess(scope.access, existing.location_id);
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const locked = await tx.selectFrom('table_sections').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    // Deleted since it was found: the 404 a later request gets.
    if (!locked) throw errors.notFound('table section');
    if (input.tables !== undefined && input.tables < locked.tables) {
      // Only a party still at a table above the new number holds it (an idle session is over: closed here).
      const busy = await tx.selectFrom('table_sessions').select('id').where('table_section_id', '=', id).where(liveSession(scope.now)).where('table_number', '>', input.tables).executeTakeFirst();
      if (busy) throw errors.field('tables', TABLES_IN_USE);
      await tx.updateTable('table_sessions').set({ status: 'closed', closed_at: scope.now }).where('table_section_id', '=', id).where('status', '=', 'open').where('table_number', '>', input.tables).execute();
    }
    const updated = await tx
      .updateTable('table_sections')
      .set({ ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.tables !== undefined ? { tables: input.tables } : {}), updated_at: scope.now })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'table section', subjectId: id, properties: { name: updated.name, tables: updated.tables } });
    return updated;
  });
  return (await present(scope.tdb, [row]))[0]!;
}

/**
 * `POST /table-sections/{id}/tables/{tableNumber}/close`: staff end the party at a table (it left); its
 * open session is closed, so the next scan opens a new one and the next party does not join this one's.
 * No open session is a no-op; a table that is not 1..`tables` of the section is 404 `table`. Bound orders
 * stay bound to the closed session. Answers the section.
 */
export async function closeTable(scope: BackofficeScope, id: string, tableNumber: string): Promise<TableSectionView> {
  const existing = await findTableSection(scope.tdb, id);
  requireLocationAccess(scope.access, existing.location_id);
  const n = /^[0-9]{1,6}$/.test(tableNumber) ? Number(tableNumber) : NaN;
  if (!(n >= 1 && n <= existing.tables)) throw errors.notFound('table');
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const section = await tx.selectFrom('table_sections').selectAll().where('id', '=', id).forKeyShare().executeTakeFirst();
    if (!section) throw errors.notFound('table section');
    const closed = await tx.updateTable('table_sessions').set({ status: 'closed', closed_at: scope.now }).where('table_section_id', '=', id).where('table_number', '=', n).where('status', '=', 'open').returning('id').executeTakeFirst();
    // The location is recorded: the activity log shows the closure within the location grant only.
    if (closed) await logActivity(tx, { userId: scope.userId, action: 'closed', subject: 'table session', subjectId: closed.id, properties: { table_section_id: id, table_number: n, location_id: section.location_id } });
    return section;
  });
  return (await present(scope.tdb, [row]))[0]!;
}

export const SECTION_IN_USE = 'The section has an open session: close its tables first.';

/**
 * `DELETE /table-sections/{id}`: its sessions go with it; bound orders keep their data (the link is
 * cleared). Refused while a party is still at a table (409 `section_in_use`), as a shrink is: the
 * party's orders would lose the table the kitchen, the receipt and the register's stream name.
 */
export async function deleteTableSection(scope: BackofficeScope, id: string): Promise<void> {
  const existing = await findTableSection(scope.tdb, id);
  requireLocationAccess(scope.access, existing.location_id);
  await inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant: tx }) => {
    // Locked first: a scan opening a session waits for the delete (or is seen here); two deletes at once, one 200.
    const locked = await tx.selectFrom('table_sections').select('id').where('id', '=', id).forUpdate().executeTakeFirst();
    if (!locked) throw errors.notFound('table section');
    const busy = await tx.selectFrom('table_sessions').select('id').where('table_section_id', '=', id).where(liveSession(scope.now)).executeTakeFirst();
    if (busy) throw errors.conflict(SECTION_IN_USE, { reason: 'section_in_use' });
    await tx.deleteFrom('table_sections').where('id', '=', id).execute();
    await logActivity(tx, { userId: scope.userId, action: 'deleted', subject: 'table section', subjectId: id, properties: { name: existing.name } });
    await central.deleteFrom('table_qr_directory').where('table_section_id', '=', id).execute();
  });
}
