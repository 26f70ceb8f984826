import { expect } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { addDays, businessDate } from '@pos/domain/business-day/business-day';
import type { TestApi } from '../../testing/harness.ts';

/** Test helpers of the register-administration and report suites. */

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const tdbOf = (api: TestApi, m: DemoSeedResult): TenantDb => bindTenant(api.deps.db, m.merchant.tenant_database);

/** Today's business date at the demo locations (Europe/Brussels). */
export const today = () => businessDate(new Date(), 'Europe/Brussels');
export const yesterday = () => addDays(today(), -1);

/** A register session on a seeded POS device: device token and the staff token of `role`. */
export async function registerSession(api: TestApi, m: DemoSeedResult, role: 'manager' | 'cashier' = 'manager', index = 0) {
  const device = await api.deviceToken(m, 'pos', index);
  const staff = await api.staffLogin(m, role, device);
  return { device, staff };
}

/**
 * Opens a register order of the named catalog items (each qty 1 unless repeated) and settles it
 * with `settleBody` through the device API; returns the settled order resource.
 */
export async function sellThroughApi(api: TestApi, m: DemoSeedResult, session: { device: string; staff: string }, items: string[], settleBody: unknown) {
  const lines = items.map((name) => {
    const it = m.items.find((i) => i.name === name)!;
    return { uuid: crypto.randomUUID(), item_id: it.id, qty: 1, unit_price: it.unit_price, price_source: 'catalog', modifiers: [] };
  });
  const id = crypto.randomUUID();
  const opened = await api.call('PUT', `/api/pos/orders/${id}`, { token: session.device, deviceKey: true, staffToken: session.staff, body: { lines } });
  expect(opened.status).toBe(200);
  const settled = await api.call('POST', `/api/pos/orders/${id}/settle`, { token: session.device, deviceKey: true, staffToken: session.staff, body: settleBody });
  expect(settled.status).toBe(200);
  return settled.body as { client_uuid: string; transaction_id: string; totals: { total: number; by_vat_rate: unknown[] } };
}

/**
 * A settled sale written straight to the tables (no signature): for tenders the API would never
 * freeze (a malformed one), other locations and other dates. Returns the transaction id.
 */
export async function insertSale(
  api: TestApi,
  m: DemoSeedResult,
  s: { locationId: string; total: number; tender: unknown; byVatRate: { rate: number; net: number; vat: number; gross: number }[]; businessDate: string },
): Promise<string> {
  const tdb = tdbOf(api, m);
  const orderId = Bun.randomUUIDv7();
  const txId = Bun.randomUUIDv7();
  const device = m.devices.find((d) => d.type === 'pos')!.id;
  const totals = { subtotal: s.total, discount: 0, vat: s.byVatRate.reduce((a, g) => a + g.vat, 0), total: s.total, by_vat_rate: s.byVatRate };
  await tdb
    .insertInto('pos_orders')
    .values({
      id: orderId,
      location_id: s.locationId,
      device_id: device,
      staff_id: null,
      version: 2,
      state: 'SETTLED',
      order_profile: JSON.stringify({ behavior: 'take_away' }),
      table_number: null,
      lines: JSON.stringify([]),
      totals: JSON.stringify(totals),
      tender: JSON.stringify(s.tender),
      fiscal: null,
      transaction_id: txId,
      created_at: new Date(),
      updated_at: new Date(),
      settled_at: new Date(),
    })
    .execute();
  await tdb
    .insertInto('pos_transactions')
    .values({
      id: txId,
      order_id: orderId,
      location_id: s.locationId,
      device_id: device,
      staff_id: null,
      total: s.total,
      tender: JSON.stringify(s.tender),
      payment_snapshot: JSON.stringify([]),
      fiscal: null,
      business_date: s.businessDate,
      till_id: null,
      created_at: new Date(),
    })
    .execute();
  return txId;
}

/** A cash refund written straight to `pos_refunds` (the register's refund route belongs to another suite). */
export async function insertRefund(
  api: TestApi,
  m: DemoSeedResult,
  r: { transactionId: string; locationId: string; amount: number; rounding?: number; byVatRate: { rate: number; net: number; vat: number; gross: number }[]; businessDate: string },
): Promise<string> {
  const tdb = tdbOf(api, m);
  const staff = await tdb.selectFrom('staff_credentials').select('id').orderBy('name').executeTakeFirstOrThrow();
  const id = Bun.randomUUIDv7();
  await tdb
    .insertInto('pos_refunds')
    .values({
      id,
      transaction_id: r.transactionId,
      location_id: r.locationId,
      device_id: m.devices.find((d) => d.type === 'pos')!.id,
      staff_id: staff.id,
      approved_by: null,
      mode: 'partial',
      amount: r.amount,
      ...(r.rounding !== undefined ? { rounding: r.rounding } : {}),
      by_vat_rate: JSON.stringify(r.byVatRate),
      till_id: null,
      fiscal: null,
      business_date: r.businessDate,
      created_at: new Date(),
    })
    .execute();
  return id;
}

/** A random UUID (v4) that names nothing. */
export const nothing = () => crypto.randomUUID();
