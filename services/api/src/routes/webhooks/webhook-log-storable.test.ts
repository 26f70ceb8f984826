import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { saveConnection } from '@pos/core/integrations/connections';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// decisions.md "Integration webhooks": "Every delivery that passed verification is one `webhook_logs` row".
// PostgreSQL refuses NUL in text and the \u0000 escape in jsonb, and a document nested past what
// JSON.stringify can write cannot be serialised: such verified deliveries must still be logged.
let api: TestApi;
let m: DemoSeedResult;
const TOKEN_KEY = 'c'.repeat(64);
const key = parseTokenKey(TOKEN_KEY)!;
const SECRET = 'delivery-b-webhook-secret-storable';
const ref = () => crypto.randomUUID().slice(0, 8);
const store = `db-${ref()}`;
let connId = '';
beforeAll(async () => {
  api = await createTestApi({ env: { DELIVERY_B_WEBHOOK_SECRET: SECRET, INTEGRATION_TOKEN_KEY: TOKEN_KEY } });
  m = await api.seed('webhook-storable');
  connId = (await saveConnection(api.deps.db, key, { provider: 'delivery-b', externalRef: store, merchantId: m.merchant.id, locationId: m.locations[0]!.id }, new Date())).id;
}, 60_000);
afterAll(() => api.close());
const sig = (raw: string) => ({ 'x-delivery-b-signature': createHmac('sha256', SECRET).update(raw).digest('hex') });
const logsOf = (raw: string) => api.deps.db.selectFrom('webhook_logs').select(['status', 'error']).where('provider', '=', 'delivery-b').where('raw_body', '=', raw).execute();

describe('a verified delivery is logged whatever its JSON holds', () => {
  test('order note with \\u0000: the delivery is one webhook_logs row', async () => {
    const orderId = `o-${ref()}`;
    const raw = `{"event_id":"${crypto.randomUUID()}","event_type":"orders.new","store_id":"${store}","order":{"id":"${orderId}","note":"ring bell\\u0000"}}`;
    expect(JSON.parse(raw).order.note).toBe('ring bell\u0000');
    const r = await api.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: sig(raw) });
    expect(r.status).toBe(200);
    const ev = await api.deps.db.selectFrom('integration_events').selectAll().where('connection_id', '=', connId).where('external_id', '=', orderId).execute();
    const logs = await logsOf(raw);
    expect({ events: ev.length, logs }).toEqual({ events: 1, logs: [{ status: 'processed', error: null }] });
  });

  test('half an emoji (an unpaired surrogate) in a note or a key: the delivery is one webhook_logs row (jsonb refused it: none)', async () => {
    for (const extra of ['"note":"ring bell \\ud83d"', '"\\udc00key":"x"']) {
      const orderId = `o-${ref()}`;
      const raw = `{"event_id":"${crypto.randomUUID()}","event_type":"orders.new","store_id":"${store}","order":{"id":"${orderId}",${extra}}}`;
      const r = await api.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: sig(raw) });
      expect(r.status).toBe(200);
      expect(await logsOf(raw)).toEqual([{ status: 'processed', error: null }]);
      const [log] = await api.deps.db.selectFrom('webhook_logs').select('payload').where('provider', '=', 'delivery-b').where('raw_body', '=', raw).execute();
      expect(JSON.stringify(log!.payload)).toContain('\uFFFD');
    }
  });

  test('event id with \\u0000: the delivery is logged as failed (visible, replayable), not dropped', async () => {
    const raw = `{"event_id":"ev\\u0000${ref()}","event_type":"orders.new","store_id":"${store}","order":{"id":"o-${ref()}"}}`;
    const r = await api.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: sig(raw) });
    expect(r.status).toBe(200);
    expect((await logsOf(raw)).map((l) => l.status)).toEqual(['failed']);
  });

  test('deeply nested (valid, 200 KB) JSON: the delivery is logged (its raw body; the document cannot be serialised)', async () => {
    const raw = `{"event_id":"${crypto.randomUUID()}","event_type":"orders.new","store_id":"${store}","order":{"id":"o-${ref()}"},"x":${'['.repeat(90000)}${']'.repeat(90000)}}`;
    const r = await api.call('POST', '/api/webhook/delivery-b', { rawBody: raw, headers: sig(raw) });
    expect(r.status).toBe(200);
    expect(await logsOf(raw)).toEqual([{ status: 'processed', error: null }]);
  });
});
