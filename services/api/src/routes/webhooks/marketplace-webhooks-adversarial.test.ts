/**
 * A prober's pass on the marketplace order webhooks: orders for a store connected to no one, for a
 * disabled integration, the same event twice at once. Each must answer the marketplace 200 and queue an
 * import only for an active connection, once.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { saveConnection } from '@pos/core/integrations/connections';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let m: DemoSeedResult;
const TOKEN_KEY = 'b'.repeat(64);
const SECRETS = { DELIVERY_A_WEBHOOK_SECRET: 'delivery-a-adv-secret-0123', DELIVERY_B_WEBHOOK_SECRET: 'delivery-b-adv-secret-0123', INTEGRATION_TOKEN_KEY: TOKEN_KEY };
const ref = () => crypto.randomUUID().slice(0, 8);
const stores = { active: `da-adv-${ref()}`, disabled: `da-adv-off-${ref()}`, dbDisabled: `db-adv-off-${ref()}` };
const OK = { status: 200, text: '{"received":true}' };

beforeAll(async () => {
  api = await createTestApi({ env: SECRETS });
  m = await api.seed('mkthook-adv');
  const key = parseTokenKey(TOKEN_KEY)!;
  const now = new Date();
  await saveConnection(api.deps.db, key, { provider: 'delivery-a', externalRef: stores.active, merchantId: m.merchant.id, locationId: m.locations[0]!.id }, now);
  await saveConnection(api.deps.db, key, { provider: 'delivery-a', externalRef: stores.disabled, merchantId: m.merchant.id, locationId: m.locations[1]!.id, status: 'disabled' }, now);
  await saveConnection(api.deps.db, key, { provider: 'delivery-b', externalRef: stores.dbDisabled, merchantId: m.merchant.id, locationId: m.locations[0]!.id, status: 'disabled' }, now);
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
});

const hex = (secret: string, raw: string) => createHmac('sha256', secret).update(raw).digest('hex');
const daEvent = (store: string) => JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'orders.notification', meta: { resource_id: `order-${ref()}`, user_id: store } });
const dbEvent = (store: string) => JSON.stringify({ event_id: crypto.randomUUID(), event_type: 'order.new', store_id: store, order: { id: `order-${ref()}` } });
const postA = (raw: string) => api.call('POST', '/api/webhook/delivery-a/orders', { rawBody: raw, headers: { 'x-delivery-a-signature': hex(SECRETS.DELIVERY_A_WEBHOOK_SECRET, raw) } });
const postB = (raw: string) => api.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: { 'x-delivery-b-signature': hex(SECRETS.DELIVERY_B_WEBHOOK_SECRET, raw) } });
const logs = (provider: string, raw: string) => api.deps.db.selectFrom('webhook_logs').select(['status', 'merchant_id']).where('provider', '=', provider).where('raw_body', '=', raw).orderBy('created_at').orderBy('id').execute();
const importJobs = (eventId: string) => api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'integration.order-import').where(sql<boolean>`payload->>'eventId' = ${eventId}`).execute();
const eventsOf = (eventId: string) => api.deps.db.selectFrom('integration_events').select(['status', 'merchant_id']).where('event_id', '=', eventId).execute();

describe('marketplace order webhooks, adversarial', () => {
  test('an order for a store connected to no one: 200, location_not_resolved, no merchant, no import', async () => {
    const raw = daEvent(`nobody-${ref()}`);
    expect(await postA(raw)).toMatchObject(OK);
    expect(await logs('delivery-a', raw)).toEqual([{ status: 'location_not_resolved', merchant_id: null }]);
    expect(await importJobs(JSON.parse(raw).event_id)).toEqual([]);
    expect(await eventsOf(JSON.parse(raw).event_id)).toEqual([]);
  });

  test('an order while delivery-a is disabled: 200, ignored, no import queued', async () => {
    const raw = daEvent(stores.disabled);
    expect(await postA(raw)).toMatchObject(OK);
    expect(await logs('delivery-a', raw)).toEqual([{ status: 'ignored', merchant_id: m.merchant.id }]);
    expect(await importJobs(JSON.parse(raw).event_id)).toEqual([]);
  });

  test('an order while delivery-b is disabled: 200, ignored, no import queued', async () => {
    const raw = dbEvent(stores.dbDisabled);
    expect(await postB(raw)).toMatchObject(OK);
    expect(await logs('delivery-b', raw)).toEqual([{ status: 'ignored', merchant_id: m.merchant.id }]);
    expect(await importJobs(JSON.parse(raw).event_id)).toEqual([]);
  });

  test('the same order event delivered 5 times at once: one processed, the rest duplicates, one import job', async () => {
    const raw = daEvent(stores.active);
    const answers = await Promise.all(Array.from({ length: 5 }, () => postA(raw)));
    for (const a of answers) expect(a).toMatchObject(OK);
    const statuses = (await logs('delivery-a', raw)).map((l) => l.status).sort();
    expect(statuses).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'processed']);
    expect(await importJobs(JSON.parse(raw).event_id)).toHaveLength(1);
    expect(await eventsOf(JSON.parse(raw).event_id)).toEqual([{ status: 'pending', merchant_id: m.merchant.id }]);
  });
});
