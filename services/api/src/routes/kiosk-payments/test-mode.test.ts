import { afterAll, beforeAll, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, migrateTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// A kiosk at a location in payment test mode (spec 3 "Online ordering payment creation" 1 gives such an
// order a synthetic payment; a test-mode transaction took no money and is deletable): no real terminal sale.
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'kiosk-tm', CARD_B_CLIENT_SECRET: 'kiosk-tm-secret' };
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const setTestMode = async (on: boolean) => {
  const { location_id } = await tdb().selectFrom('devices').select('location_id').where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: on }) }).where('id', '=', location_id).execute();
};

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url } });
  m = await api.seed('kiosktm');
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(async () => {
  await api.close();
  await cardB.stop();
});

test('a kiosk order in payment test mode is not charged on the real terminal: it completes as the synthetic test payment and can be deleted', async () => {
  await setTestMode(true);
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
  expect(r.status).toBe(200);
  const t = r.body.data;
  expect(cardB.session(t.idempotency_key)).toBeUndefined();
  expect(t.status).toBe('Complete');
  const row = await tdb().selectFrom('transactions').select(['status', 'is_test', 'is_free', 'total', 'payment_snapshot']).where('id', '=', t.id).executeTakeFirstOrThrow();
  // The synthetic snapshot says is_free (spec 3); the order itself was not free: `is_free` is the free-order flag.
  expect(row).toMatchObject({ status: 'Complete', is_test: true, is_free: false, total: m.items[0]!.unit_price, payment_snapshot: expect.objectContaining({ id: `free_${t.id}`, is_free: true }) });
  expect(t.is_free).toBe(false);
  const owner = await api.ownerToken(m);
  expect((await api.call('DELETE', `/api/back-office/transactions/${t.id}`, { token: owner })).status).toBe(200);
});

test('a test-mode transaction the customer paid for at the terminal cannot be deleted (409 provider_paid)', async () => {
  // Started for real before test mode was turned on, flagged test afterwards (as rows made before this rule).
  await setTestMode(false);
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
  expect(r.status).toBe(200);
  const t = r.body.data;
  expect(cardB.session(t.idempotency_key)?.amount).toBe(t.total);
  await cardB.complete(t.idempotency_key);
  await capturePayment({ tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() }, t.id, { kind: 'poll' });
  await tdb().updateTable('transactions').set({ is_test: true }).where('id', '=', t.id).execute();
  const owner = await api.ownerToken(m);
  const del = await api.call('DELETE', `/api/back-office/transactions/${t.id}`, { token: owner });
  expect(del.status).toBe(409);
  expect(del.body).toEqual({ message: 'A transaction paid at a payment provider cannot be deleted.', reason: 'provider_paid' });
  expect(await tdb().selectFrom('transactions').select('status').where('id', '=', t.id).executeTakeFirst()).toEqual({ status: 'Complete' });
});

test('tenant migration 2026-12-06-300 clears is_free on test-mode orders the earlier capture marked free (not the free ones, not other orders)', async () => {
  await setTestMode(true);
  const start = async (qty: number) => (await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty }] } })).body.data;
  const paid = await start(1);
  const other = await start(2);
  await setTestMode(false);
  // As the capture before this session left them: both flagged free; `other` stands for a free order (total 0).
  await tdb().updateTable('transactions').set({ is_free: true }).where('id', '=', paid.id).execute();
  await tdb().updateTable('transactions').set({ is_free: true, total: 0 }).where('id', '=', other.id).execute();
  await sql`delete from ${sql.id(m.merchant.tenant_database, 'kysely_migration')} where name = '2026-12-06-300-test-mode-not-free'`.execute(api.deps.db);
  await api.deps.db.deleteFrom('tenant_schema_versions').where('schema_name', '=', m.merchant.tenant_database).execute();
  await migrateTenant(api.deps.db, m.merchant.tenant_database);
  const flags = await tdb().selectFrom('transactions').select(['id', 'is_free']).where('id', 'in', [paid.id, other.id]).execute();
  expect(Object.fromEntries(flags.map((f) => [f.id, f.is_free]))).toEqual({ [paid.id]: false, [other.id]: true });
});
