import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { deliveryBOAuthSimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 13: a delivery-b account is connected through the OAuth callback (the code exchanged at the
 * provider's token endpoint, a separate simulator process) and kept as the merchant's ACCOUNT
 * (`delivery-b-account`), never as a store; a store of the location (provider `delivery-b`, keyed by the
 * store id, as enable/select-store write it) then receives a signed delivery-b webhook naming it, which
 * reaches the running API and lands with that merchant and location.
 */
function mintState(provider: string, merchantId: string, locationId: string): string {
  // The state format of docs/decisions.md, computed here independently of the API.
  const body = Buffer.from(JSON.stringify({ p: provider, m: merchantId, l: locationId, n: randomUUID(), exp: Math.floor(Date.now() / 1000) + 600 })).toString('base64url');
  return `${body}.${createHmac('sha256', E2E.env.OAUTH_STATE_SECRET).update(`oauth-state.${body}`).digest('base64url')}`;
}

test('delivery-b: OAuth connect, then a signed order webhook resolves to the connected location', async ({ request }) => {
  const seed = loadSeed();
  const location = seed.locations[0]!.id;
  const store = `e2e-store-${randomUUID().slice(0, 8)}`;
  const account = `e2e-account-${randomUUID().slice(0, 8)}`;
  const code = (await (await request.post(deliveryBOAuthSimUrl('/_sim/codes'), { data: { account_id: account } })).json()).code as string;

  const forged = await request.get(`/api/delivery-b/callback?code=${code}&state=${mintState('delivery-b', seed.merchant.id, location).replace(/.$/, 'A')}x`);
  expect(forged.status()).toBe(400);
  const connected = await request.get(`/api/delivery-b/callback?code=${code}&state=${mintState('delivery-b', seed.merchant.id, location)}`);
  expect(connected.status()).toBe(200);
  expect((await connected.json()).data).toMatchObject({ provider: 'delivery-b', location_id: location });

  const raw = JSON.stringify({ event_id: randomUUID(), event_type: 'order.new', store_id: store, order: { id: 'DB-1001' } });
  const signature = createHmac('sha256', E2E.env.DELIVERY_B_WEBHOOK_SECRET).update(raw).digest('hex');
  const unsigned = await request.post('/api/webhook/delivery-b', { data: raw, headers: { 'content-type': 'application/json' } });
  expect(unsigned.status()).toBe(401);
  const deliver = async () => {
    const r = await request.post('/api/webhook/delivery-b', { data: raw, headers: { 'content-type': 'application/json', 'x-delivery-b-signature': signature } });
    expect(r.status()).toBe(200);
    expect(await r.json()).toEqual({ received: true });
  };

  const db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
  await db.connect();
  try {
    const acct = await db.query('select provider, merchant_id, location_id, access_token_encrypted from integration_connections where external_ref = $1', [account]);
    expect(acct.rows).toHaveLength(1);
    expect(acct.rows[0]).toMatchObject({ provider: 'delivery-b-account', merchant_id: seed.merchant.id, location_id: null });
    expect(acct.rows[0].access_token_encrypted).toMatch(/^v1\./);
    // The location's store, as enable/select-store write it (the back-office flow is covered by the API tests).
    await db.query(`insert into integration_connections (id, provider, external_ref, merchant_id, location_id, status, settings, connected_at, created_at, updated_at) values ($1, 'delivery-b', $2, $3, $4, 'active', '{}', now(), now(), now())`, [randomUUID(), store, seed.merchant.id, location]);
    await deliver();
    const conn = await db.query('select id, merchant_id, location_id from integration_connections where provider = $1 and external_ref = $2', ['delivery-b', store]);
    expect(conn.rows).toHaveLength(1);
    expect(conn.rows[0]).toMatchObject({ merchant_id: seed.merchant.id, location_id: location });
    // Issue 17: the worker reads the order through delivery-b's store API; that marketplace does not
    // know 'DB-1001' (the webhook above was hand-made), so the import ends `failed` and nothing is created.
    const events = async () => (await db.query('select kind, external_id, status from integration_events where connection_id = $1', [conn.rows[0].id])).rows;
    const settled = async () => {
      for (let i = 0; i < 100 && (await events())[0]?.status === 'pending'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await events()).toEqual([{ kind: 'order_event', external_id: 'DB-1001', status: 'failed' }]);
    };
    await settled();
    // The marketplace delivers it again once the import has ended `failed`: re-queued (decisions.md,
    // "An import that gave up is not lost"), not a second event. Sent only after the first import ended,
    // so the outcome does not depend on which comes first (within 30 s of a pending import it is `duplicate`).
    await deliver();
    await settled();
    const logs = await db.query('select status, merchant_id from webhook_logs where provider = $1 and raw_body = $2 order by created_at, id', ['delivery-b', raw]);
    expect(logs.rows).toEqual([
      { status: 'processed', merchant_id: seed.merchant.id },
      { status: 'processed', merchant_id: seed.merchant.id },
    ]);
    const created = await db.query(`select count(*)::int as n from "${seed.merchant.tenant_database}".transactions where external_order_id = 'DB-1001'`);
    expect(created.rows[0].n).toBe(0);
  } finally {
    await db.end();
  }
});
