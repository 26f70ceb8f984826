import type { TenantDb, TenantTx } from '@pos/db';
import type { CustomerRow } from './customers.ts';
import { errors } from '@pos/kernel';

/** What the customer app and the back office show of a customer. */
export function customerView(c: CustomerRow) {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    marketing_consent: c.marketing_consent,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

export type AddressRow = { id: string; label: string | null; line1: string; line2: string | null; postal_code: string; city: string; country: string; is_default: boolean; created_at: Date };

export function addressView(a: AddressRow) {
  return { id: a.id, label: a.label, line1: a.line1, line2: a.line2, postal_code: a.postal_code, city: a.city, country: a.country, is_default: a.is_default, created_at: a.created_at.toISOString() };
}

export async function listAddresses(db: TenantDb | TenantTx, customerId: string) {
  const rows = await db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', customerId).orderBy('is_default', 'desc').orderBy('created_at').orderBy('id').execute();
  return rows.map(addressView);
}

export interface AddressInput {
  label?: string | null;
  line1: string;
  line2?: string | null;
  postal_code: string;
  city: string;
  country: string;
  is_default?: boolean;
}

/** The error for a customer erased while the request ran: 404 in the back office, `invalidToken` for the customer's own app. */
export type CustomerGone = () => Error;
const notFoundCustomer: CustomerGone = () => errors.notFound('customer');

/** Locks the customer's row (writes of one customer run one after the other); `gone` when it was erased meanwhile. */
export async function lockCustomer(tx: TenantTx, customerId: string, gone: CustomerGone = notFoundCustomer): Promise<void> {
  const row = await tx.selectFrom('customers').select('id').where('id', '=', customerId).forUpdate().executeTakeFirst();
  if (!row) throw gone();
}

/** Adds an address; the first one, or one marked default, becomes the default (the old default is cleared first). */
export async function addAddress(db: TenantDb, customerId: string, input: AddressInput, now: Date, gone: CustomerGone = notFoundCustomer) {
  // The schema's minLength counts spaces: a part that is blank once trimmed is missing, not stored empty.
  for (const field of ['line1', 'postal_code', 'city'] as const) {
    if (!input[field].trim()) throw errors.field(field, `The ${field} field is required.`);
  }
  return db.transaction().execute(async (tx) => {
    // Serialise address writes of one customer (the one-default index would fail the loser otherwise).
    await lockCustomer(tx, customerId, gone);
    const count = Number((await tx.selectFrom('customer_addresses').select((eb) => eb.fn.countAll<string>().as('n')).where('customer_id', '=', customerId).executeTakeFirstOrThrow()).n);
    if (count >= 20) throw errors.field('line1', 'A customer has at most 20 addresses.');
    const isDefault = input.is_default === true || count === 0;
    if (isDefault) await tx.updateTable('customer_addresses').set({ is_default: false }).where('customer_id', '=', customerId).where('is_default', '=', true).execute();
    const row = await tx
      .insertInto('customer_addresses')
      .values({
        id: Bun.randomUUIDv7(),
        customer_id: customerId,
        label: input.label?.trim() || null,
        line1: input.line1.trim(),
        line2: input.line2?.trim() || null,
        postal_code: input.postal_code.trim(),
        city: input.city.trim(),
        country: input.country.toUpperCase(),
        is_default: isDefault,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return addressView(row);
  });
}

/** Makes one of the customer's addresses the default; false when the address is not theirs. */
export async function setDefaultAddress(db: TenantDb, customerId: string, addressId: string, gone: CustomerGone = notFoundCustomer): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await lockCustomer(tx, customerId, gone);
    const a = await tx.selectFrom('customer_addresses').select('id').where('id', '=', addressId).where('customer_id', '=', customerId).executeTakeFirst();
    if (!a) return false;
    await tx.updateTable('customer_addresses').set({ is_default: false }).where('customer_id', '=', customerId).where('is_default', '=', true).execute();
    await tx.updateTable('customer_addresses').set({ is_default: true }).where('id', '=', addressId).execute();
    return true;
  });
}

/** Deletes one of the customer's addresses; when it was the default, the oldest remaining one takes over. */
export async function deleteAddress(db: TenantDb, customerId: string, addressId: string, gone: CustomerGone = notFoundCustomer): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    await lockCustomer(tx, customerId, gone);
    const removed = await tx.deleteFrom('customer_addresses').where('id', '=', addressId).where('customer_id', '=', customerId).returning('is_default').executeTakeFirst();
    if (!removed) return false;
    if (removed.is_default) {
      const next = await tx.selectFrom('customer_addresses').select('id').where('customer_id', '=', customerId).orderBy('created_at').orderBy('id').executeTakeFirst();
      if (next) await tx.updateTable('customer_addresses').set({ is_default: true }).where('id', '=', next.id).execute();
    }
    return true;
  });
}

/**
 * A customer's order as the customer app and the back office list it (no payment internals).
 * `locationIds` limits the list (and its total) to those locations: the back office passes the
 * caller's location grant (`grantedLocationIds`), as the transaction lists do; absent, no limit.
 */
export async function orderSummaries(db: TenantDb | TenantTx, where: { customerId?: string; ids?: readonly string[]; locationIds?: readonly string[] }, page = 1, perPage = 25) {
  const NONE = '00000000-0000-0000-0000-000000000000';
  let q = db
    .selectFrom('transactions as t')
    .innerJoin('locations as l', 'l.id', 't.location_id')
    .where('t.status', 'not in', ['Pending', 'Cancelled']);
  if (where.customerId) q = q.where('t.customer_id', '=', where.customerId);
  if (where.ids) q = q.where('t.id', 'in', where.ids.length ? [...where.ids] : [NONE]);
  if (where.locationIds) q = q.where('t.location_id', 'in', where.locationIds.length ? [...where.locationIds] : [NONE]);
  const total = Number((await q.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await q
    .select(['t.id', 't.order_no', 't.channel', 't.status', 't.order_status', 't.total', 't.location_id', 'l.name as location_name', 't.dining_option', 't.created_at', 't.completed_at'])
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .limit(perPage)
    .offset((page - 1) * perPage)
    .execute();
  const data = rows.map((r) => ({
    id: r.id,
    order_no: r.order_no,
    channel: r.channel,
    status: r.status,
    order_status: r.order_status,
    total: r.total,
    location: { id: r.location_id, name: r.location_name },
    dining_option: r.dining_option,
    created_at: r.created_at.toISOString(),
    completed_at: r.completed_at ? r.completed_at.toISOString() : null,
  }));
  return { data, total, page, per_page: perPage };
}

/** One order with its lines; null when absent or (with `customerId`) another customer's. */
export async function orderDetail(db: TenantDb | TenantTx, id: string, customerId?: string) {
  let q = db.selectFrom('transactions as t').innerJoin('locations as l', 'l.id', 't.location_id').where('t.id', '=', id);
  if (customerId) q = q.where('t.customer_id', '=', customerId);
  const t = await q
    .select(['t.id', 't.order_no', 't.channel', 't.status', 't.order_status', 't.subtotal', 't.discount', 't.vat', 't.tip_amount', 't.total', 't.location_id', 'l.name as location_name', 't.dining_option', 't.customer_id', 't.created_at', 't.completed_at'])
    .executeTakeFirst();
  if (!t) return null;
  const lines = await db.selectFrom('transaction_lines').select(['position', 'item_id', 'name', 'qty', 'unit_price', 'total', 'modifiers']).where('transaction_id', '=', id).orderBy('position').execute();
  return {
    id: t.id,
    order_no: t.order_no,
    channel: t.channel,
    status: t.status,
    order_status: t.order_status,
    subtotal: t.subtotal,
    discount: t.discount,
    vat: t.vat,
    tip_amount: t.tip_amount,
    total: t.total,
    location: { id: t.location_id, name: t.location_name },
    dining_option: t.dining_option,
    customer_id: t.customer_id,
    created_at: t.created_at.toISOString(),
    completed_at: t.completed_at ? t.completed_at.toISOString() : null,
    lines: lines.map((l) => ({ position: l.position, item_id: l.item_id, name: l.name, qty: l.qty, unit_price: l.unit_price, total: l.total, modifiers: l.modifiers as unknown[] })),
  };
}
