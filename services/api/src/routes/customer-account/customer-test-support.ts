import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from '../../testing/harness.ts';

/** A customer of a seeded merchant and a customer token for them (as `POST /customer/login` signs it). */
export async function makeCustomer(api: TestApi, m: DemoSeedResult, fields: { name?: string; email?: string | null; phone?: string | null } = {}) {
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const id = Bun.randomUUIDv7();
  const now = new Date();
  const phone = fields.phone === undefined ? `+3247${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}` : fields.phone;
  await tdb.insertInto('customers').values({ id, name: fields.name ?? 'Cora', email: fields.email ?? null, phone, created_at: now, updated_at: now }).execute();
  await tdb.insertInto('loyalty_accounts').values({ customer_id: id, updated_at: now }).execute();
  const token = await api.deps.tokens.sign({ type: 'customer', sub: id, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  return { id, token, phone };
}

/** A completed order of a location (optionally a customer's) with one line, written as the payment flow leaves it. */
export async function makeOrder(api: TestApi, m: DemoSeedResult, o: { customerId?: string | null; customerName?: string | null; locationIndex?: number; total?: number; createdAt?: Date }) {
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const id = Bun.randomUUIDv7();
  const at = o.createdAt ?? new Date();
  const total = o.total ?? 1250;
  const location = m.locations[o.locationIndex ?? 0]!;
  const orderNo = Math.floor(Math.random() * 1e6);
  await tdb
    .insertInto('transactions')
    .values({
      id,
      location_id: location.id,
      device_id: null,
      channel: 'online_ordering',
      order_no: orderNo,
      status: 'Complete',
      order_status: 'Queued',
      payment_provider: 'card-a',
      payment_snapshot: '{}',
      idempotency_key: `test-${id}`,
      all_idempotency_keys: [`test-${id}`],
      receipt_no: orderNo,
      subtotal: total,
      discount: 0,
      vat: Math.round(total * 0.06),
      total,
      by_vat_rate: '[]',
      offers: '[]',
      menu_version: null,
      customer_id: o.customerId ?? null,
      customer_name: o.customerName ?? null,
      loyalty_token: null,
      cart_session_id: null,
      completed_at: at,
      created_at: at,
      updated_at: at,
    })
    .execute();
  const item = m.items[0]!;
  await tdb
    .insertInto('transaction_lines')
    .values({ transaction_id: id, position: 1, item_id: item.id, category_id: null, name: item.name, qty: 1, unit_price: total, vat_rate: '6', gross: total, discount: 0, total, modifiers: '[]', variant: null })
    .execute();
  return { id, orderNo, total, location };
}
