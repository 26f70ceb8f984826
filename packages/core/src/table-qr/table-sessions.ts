import { sql, type Selectable } from 'kysely';
import { bindTenant, type CentralDb, type TenantDb, type TenantTables, type TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { findMerchant, type MerchantRecord } from '../auth/auth-records.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';
import { tableSessionIdle } from '@pos/domain';
import { readSettings } from '../online-ordering/channel-settings.ts';

/**
 * Table QR ordering (spec 1 "Online ordering and table QR ordering"; spec 3 "verify (online) ... bound
 * to table session"). A scan opens the table's session or joins the open one; a paid order is bound
 * to it, by `bind-order` or at capture when the payment snapshot carries `table_session_id`.
 */

export type TableSessionRow = Selectable<TenantTables['table_sessions']>;

export const ORDER_NOT_PAID = 'Only a paid order can be bound to a table session.';
export const ORDER_OTHER_LOCATION = 'The order was placed at another location.';
export const ORDER_OTHER_SESSION = 'The order is already bound to another table session.';
export const SESSION_CLOSED = 'The table session is closed.';

export interface QrTenant {
  readonly merchant: MerchantRecord;
  readonly tdb: TenantDb;
}

/**
 * The merchant serving table QR ordering at a location, found through the central directory of its
 * table sections; an unknown location (or one without sections) is 404 `location`.
 */
export async function resolveQrLocation(db: CentralDb, locationId: string): Promise<QrTenant> {
  const entry = isUuid(locationId) ? await db.selectFrom('table_qr_directory').select('merchant_id').where('location_id', '=', locationId).limit(1).executeTakeFirst() : undefined;
  const merchant = entry ? await findMerchant(db, entry.merchant_id) : undefined;
  if (!merchant) throw errors.notFound('location');
  const tdb = bindTenant(db, merchant.tenant_database);
  const loc = await tdb.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst();
  if (!loc) throw errors.notFound('location');
  return { merchant, tdb };
}

/**
 * An order bound to the session, as everyone at the table sees it: no transaction id. The id opens the
 * order's lines to a guest (`GET /customer/{slug}/order-detail/{id}`), and the table's link holds no
 * secret: anyone who knows it joins the open session, so the id stays with whoever placed the order.
 */
export interface SessionOrderView {
  order_no: number;
  receipt_no: number | null;
  status: string;
  order_status: string | null;
  total: number;
  completed_at: string | null;
}

export interface TableSessionView {
  id: string;
  location_id: string;
  table_section_id: string;
  table_section_name: string;
  table_number: number;
  status: string;
  opened_at: string;
  closed_at: string | null;
  /** Paid orders bound to the session, oldest first. */
  orders: SessionOrderView[];
  /** Sum of the bound orders' totals (cents). */
  total: number;
}

async function present(tdb: TenantDb | TenantTx, s: TableSessionRow): Promise<TableSessionView> {
  const section = await tdb.selectFrom('table_sections').select('name').where('id', '=', s.table_section_id).executeTakeFirst();
  // Its section deleted since the session was read: the session went with it.
  if (!section) throw errors.notFound('table session');
  const orders = await tdb
    .selectFrom('transactions')
    .select(['order_no', 'receipt_no', 'status', 'order_status', 'total', 'completed_at'])
    .where('table_session_id', '=', s.id)
    .orderBy('completed_at')
    .orderBy('id')
    .execute();
  return {
    id: s.id,
    location_id: s.location_id,
    table_section_id: s.table_section_id,
    table_section_name: section.name,
    table_number: s.table_number,
    status: s.status,
    opened_at: s.opened_at.toISOString(),
    closed_at: s.closed_at ? s.closed_at.toISOString() : null,
    orders: orders.map((o) => ({ ...o, completed_at: o.completed_at ? o.completed_at.toISOString() : null })),
    total: orders.reduce((sum, o) => sum + o.total, 0),
  };
}

/**
 * Ends the session (`closed`, `closed_at` now) when its party is gone: nothing ordered at it for
 * `TABLE_SESSION_IDLE_MS` (domain rule `tableSessionIdle`). Run in `tx` with the row locked; answers
 * the row as it now stands.
 */
async function closeIfIdle(tx: TenantTx, s: TableSessionRow, now: Date): Promise<TableSessionRow> {
  if (s.status !== 'open') return s;
  const last = await tx.selectFrom('transactions').select((eb) => eb.fn.max('completed_at').as('at')).where('table_session_id', '=', s.id).executeTakeFirst();
  if (!tableSessionIdle({ opened_at: s.opened_at, last_order_at: (last?.at as Date | null | undefined) ?? null }, now)) return s;
  return tx.updateTable('table_sessions').set({ status: 'closed', closed_at: now }).where('id', '=', s.id).returningAll().executeTakeFirstOrThrow();
}

/**
 * The session of the location as it stands now (an idle one is closed on the way), or undefined when
 * the location has no such session. For the payment and offers of a guest at a table.
 */
export async function currentTableSession(tdb: TenantDb, locationId: string, sessionId: string, now: Date): Promise<TableSessionRow | undefined> {
  if (!isUuid(sessionId)) return undefined;
  return tdb.transaction().execute(async (tx) => {
    const s = await tx.selectFrom('table_sessions').selectAll().where('id', '=', sessionId).where('location_id', '=', locationId).forUpdate().executeTakeFirst();
    return s ? closeIfIdle(tx, s, now) : undefined;
  });
}

/**
 * `GET /table-qr-ordering/{locationId}/{tableSectionId}/{tableNumber}`: the open session of the table,
 * opened when there is none. The partial unique index (one open session per table) makes concurrent
 * scans converge: each inserts with `on conflict do nothing`, then all read the one open row. An idle
 * open session (its party gone) is closed first, so the next party opens its own. With the
 * location's table QR ordering off (`qr_ordering.enabled`), or the location inactive, the scan is
 * refused as a table order is (404 `location`) and opens nothing.
 */
export async function scanTable(t: QrTenant, locationId: string, sectionId: string, tableNumber: number, now: Date): Promise<{ session: TableSessionView; opened: boolean }> {
  if (!isUuid(sectionId)) throw errors.notFound('table section');
  if (!(await readSettings(t.tdb, locationId, 'qr_ordering')).settings.enabled) throw errors.notFound('location');
  // An inactive location takes no new orders: no session is opened for them.
  const loc = await t.tdb.selectFrom('locations').select('status').where('id', '=', locationId).executeTakeFirst();
  if (loc && loc.status !== 'active') throw errors.notFound('location');
  // The section is key-share locked for the scan: a delete at the same moment waits for it (and then takes
  // the new session with it) or came first (404), never a session inserted for a deleted section.
  return t.tdb.transaction().execute(async (tx) => {
    const section = await tx.selectFrom('table_sections').selectAll().where('id', '=', sectionId).where('location_id', '=', locationId).forKeyShare().executeTakeFirst();
    if (!section) throw errors.notFound('table section');
    if (!Number.isInteger(tableNumber) || tableNumber < 1 || tableNumber > section.tables) throw errors.notFound('table');
    const current = await tx.selectFrom('table_sessions').selectAll().where('table_section_id', '=', section.id).where('table_number', '=', tableNumber).where('status', '=', 'open').forUpdate().executeTakeFirst();
    if (current) await closeIfIdle(tx, current, now);
    const id = Bun.randomUUIDv7();
    const inserted = await tx
      .insertInto('table_sessions')
      .values({ id, location_id: locationId, table_section_id: section.id, table_number: tableNumber, status: 'open', opened_at: now })
      // The arbiter predicate must be a literal for PostgreSQL to match the partial index.
      .onConflict((oc) => oc.columns(['table_section_id', 'table_number']).where(sql<boolean>`status = 'open'`).doNothing())
      .returning('id')
      .executeTakeFirst();
    const open = await tx.selectFrom('table_sessions').selectAll().where('table_section_id', '=', section.id).where('table_number', '=', tableNumber).where('status', '=', 'open').executeTakeFirst();
    if (!open) throw errors.conflict('The table session changed while it was opened; scan again.');
    return { session: await present(tx, open), opened: inserted?.id === open.id };
  });
}

async function findSession(tdb: TenantDb | TenantTx, locationId: string, sessionId: string, lock = false): Promise<TableSessionRow> {
  let q = tdb.selectFrom('table_sessions').selectAll().where('location_id', '=', locationId);
  q = q.where('id', '=', isUuid(sessionId) ? sessionId : '00000000-0000-0000-0000-000000000000');
  if (lock) q = q.forUpdate();
  const s = await q.executeTakeFirst();
  if (!s) throw errors.notFound('table session');
  return s;
}

/** `GET /table-qr-ordering/{locationId}/session/{sessionId}`: a session of that location (404 otherwise), closed when idle. */
export async function sessionDetails(t: QrTenant, locationId: string, sessionId: string, now: Date): Promise<TableSessionView> {
  const s = await currentTableSession(t.tdb, locationId, sessionId, now);
  if (!s) throw errors.notFound('table session');
  return present(t.tdb, s);
}

/**
 * `POST /table-qr-ordering/{locationId}/session/{sessionId}/bind-order`: binds a paid (Complete) order
 * of the same location to the open session. Binding it again to the same session is a no-op success;
 * an unpaid order is 422, another location's 422, one bound to another session 409, an order of
 * another merchant (or unknown) 404.
 */
export async function bindOrder(t: QrTenant, locationId: string, sessionId: string, transactionId: string, now: Date): Promise<TableSessionView> {
  await inTenantTx(t.tdb, async (tx) => {
    const s = await closeIfIdle(tx, await findSession(tx, locationId, sessionId, true), now);
    const order = isUuid(transactionId) ? await tx.selectFrom('transactions').select(['id', 'location_id', 'status', 'table_session_id']).where('id', '=', transactionId).forUpdate().executeTakeFirst() : undefined;
    if (!order) throw errors.notFound('transaction');
    if (order.table_session_id === s.id) return;
    if (s.status !== 'open') throw errors.businessRule(SESSION_CLOSED, { reason: 'session_closed' });
    if (order.location_id !== s.location_id) throw errors.businessRule(ORDER_OTHER_LOCATION, { reason: 'other_location' });
    if (order.status !== 'Complete') throw errors.businessRule(ORDER_NOT_PAID, { reason: 'order_not_paid' });
    if (order.table_session_id !== null) throw errors.conflict(ORDER_OTHER_SESSION, { reason: 'other_session' });
    await tx.updateTable('transactions').set({ table_session_id: s.id }).where('id', '=', order.id).execute();
  });
  return sessionDetails(t, locationId, sessionId, now);
}

/**
 * Spec 3 "verify (online) ... Complete ... bound to table session if table QR ordering": called in the
 * capture's commit. A payment started from a table carries `table_session_id` in its snapshot; the
 * order is bound when that session is open at the order's location, else left unbound.
 */
export async function bindTableSessionOnCapture(tx: TenantTx, t: { id: string; location_id: string; payment_snapshot: Record<string, unknown> }): Promise<void> {
  const sessionId = t.payment_snapshot.table_session_id;
  if (typeof sessionId !== 'string' || !isUuid(sessionId)) return;
  const s = await tx.selectFrom('table_sessions').select('id').where('id', '=', sessionId).where('location_id', '=', t.location_id).where('status', '=', 'open').executeTakeFirst();
  if (s) await tx.updateTable('transactions').set({ table_session_id: s.id }).where('id', '=', t.id).where('table_session_id', 'is', null).execute();
}
