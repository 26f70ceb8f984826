import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, startCardBSimulator, type CardASimulator, type CardBSimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Spec 3 "Online ordering payment creation" rule 3: "register-b integrated or card-a gives a card-only
// payment intent returning {id, client_secret, amount, created, status}; the legacy card-b path returns
// {orderCode, redirectUrl}". The default provider is overridden to card-b here, so only register-b
// moves a merchant to card-a.
let cardA: CardASimulator;
let cardB: CardBSimulator;
let api: TestApi;
let server: { stop(): unknown };
let a: DemoSeedResult;
let b: DemoSeedResult;
const SECRET = 'whsec_rb_0123456789';

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: 'sk_test_rb', webhookSecret: SECRET });
  cardB = startCardBSimulator({ clientId: 'rb-id', clientSecret: 'rb-secret' });
  api = await createTestApi({
    env: { CARD_A_SECRET_KEY: 'sk_test_rb', CARD_A_BASE_URL: cardA.url, CARD_A_WEBHOOK_SECRET: SECRET, CARD_B_CLIENT_ID: 'rb-id', CARD_B_CLIENT_SECRET: 'rb-secret', CARD_B_BASE_URL: cardB.url, PAYMENT_DEFAULT_PROVIDER: 'card-b' },
  });
  // The API listens on a port the system picks (a port probed and released first could be taken meanwhile: EADDRINUSE in CI); the simulator is told it after.
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  cardA.setWebhookUrl(`http://127.0.0.1:${api.app.server!.port}/api/card-a-webhook/BE`);
  a = await api.seed('online-rb-a');
  b = await api.seed('online-rb-b');
  const now = new Date();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id: Bun.randomUUIDv7(), provider: 'register-b', external_ref: `rb-acct-${Date.now()}`, merchant_id: a.merchant.id, status: 'active', settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now } as never)
    .execute();
}, 60_000);
afterAll(async () => {
  await cardA.idle();
  await server.stop();
  await api.close();
  await cardA.stop();
  await cardB.stop();
});

const pay = (m: DemoSeedResult) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${m.locations[0]!.id}/payment`, { body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });

describe('a register-b integrated merchant (default provider overridden to card-b)', () => {
  test('the online payment is a card-only card-a intent, not the legacy card-b hosted checkout; the card-a webhook completes it', async () => {
    const r = await pay(a);
    expect(r.status).toBe(200);
    expect(r.body.data.provider).toBe('card-a');
    expect(Object.keys(r.body.data.payment).sort()).toEqual(['amount', 'client_secret', 'created', 'id', 'status']);
    expect(cardA.intent(r.body.data.payment.id)!.payment_method_types).toEqual(['card']);
    await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
    await cardA.idle();
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const row = await tdb.selectFrom('transactions').selectAll().where('id', '=', r.body.data.transaction_id).executeTakeFirstOrThrow();
    // The stamp stays card-b (spec 3: payment_provider is the stamped provider); the snapshot runs card-a.
    expect([row.status, row.payment_provider, row.payment_snapshot.provider]).toEqual(['Complete', 'card-b', 'card-a']);
  });

  test('a merchant without register-b keeps the legacy card-b path', async () => {
    const r = await pay(b);
    expect(r.status).toBe(200);
    expect([r.body.data.provider, Object.keys(r.body.data.payment).sort()]).toEqual(['card-b', ['orderCode', 'redirectUrl']]);
  });
});
