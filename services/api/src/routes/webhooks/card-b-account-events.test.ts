import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { contentHash } from '@pos/core/webhooks/webhook-log';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// card-b account events (spec 3 "Card-b events" 8193 ACCOUNT_CONNECTED, 8194 ACCOUNT_VERIFICATION_STATUS_CHANGED):
// the simulator sends them over a real socket to the running API, which records them on the payment
// profile holding the account; the back office reads them with the profile.
let sim: CardBSimulator;
let api: TestApi;
let server: { stop(): unknown };
const KEY = 'cb-account-events-key';
const CREDS = { CARD_B_CLIENT_ID: 'cbacct', CARD_B_CLIENT_SECRET: 'cbacct-secret' };
const PP = '/api/back-office/settings/payment-profiles';

beforeAll(async () => {
  sim = startCardBSimulator({ ...{ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET }, webhookKey: KEY });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url, CARD_B_WEBHOOK_IPS: '127.0.0.1', CARD_B_WEBHOOK_KEY: KEY } });
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  sim.setWebhookUrl(`http://127.0.0.1:${api.app.server!.port}/api/card-b-webhook/BE/8193`);
});
afterAll(async () => {
  await server.stop();
  await api.close();
  await sim.stop();
});

const logOf = (body: unknown) => api.deps.db.selectFrom('webhook_logs').selectAll().where('type', '=', 'card_b_webhook').where('webhook_id', '=', contentHash(JSON.stringify(body))).executeTakeFirstOrThrow();
const lastSent = () => sim.webhooks.at(-1)!.body as any;
/** Posts `body` over the socket as card-b would (from the allowed address), to the event's own route. */
async function post(body: unknown): Promise<{ status: number; body: unknown }> {
  const r = await fetch(`http://127.0.0.1:${api.app.server!.port}/api/card-b-webhook/BE/${(body as { EventTypeId: number }).EventTypeId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}

describe('card-b account events update the payment profile holding the account', () => {
  test('8193 records the connection, 8194 the verification (newest event wins); the back office shows both; replays change nothing', async () => {
    const m = await api.seed('cbacct');
    const owner = await api.ownerToken(m);
    const id = (await api.call('POST', PP, { token: owner, body: { name: 'Terminals' } })).body.data.id as string;
    const account = crypto.randomUUID();
    expect((await api.call('POST', `${PP}/${id}/card-b/account`, { token: owner, body: { account_id: account } })).body.data).toMatchObject({ card_b_account_id: account, card_b_connected_at: null, card_b_verified: null });
    const profile = async () => (await api.call('GET', `${PP}/${id}`, { token: owner })).body.data;

    await sim.connectAccount(account);
    const connected = lastSent();
    expect(connected).toMatchObject({ EventTypeId: 8193, EventData: { ConnectedAccountId: account } });
    expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
    expect(await logOf(connected)).toMatchObject({ status: 'processed', merchant_id: m.merchant.id, event_type: 'ACCOUNT_CONNECTED', occurrences: 1 });
    expect(await profile()).toMatchObject({ card_b_connected_at: new Date(connected.Created).toISOString(), card_b_verified: null });

    await sim.verifyAccount(account, false);
    const unverified = lastSent();
    expect(await profile()).toMatchObject({ card_b_verified: false });
    await sim.verifyAccount(account, true);
    expect(await logOf(lastSent())).toMatchObject({ status: 'processed', merchant_id: m.merchant.id, event_type: 'ACCOUNT_VERIFICATION_STATUS_CHANGED' });
    expect(await profile()).toMatchObject({ card_b_connected_at: new Date(connected.Created).toISOString(), card_b_verified: true });
    // The listing shows it too.
    expect((await api.call('GET', PP, { token: owner })).body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ card_b_verified: true });

    // card-b delivers the older "not verified" again (its retry: the same bytes): nothing changes, the row keeps its outcome.
    expect((await post(unverified)).status).toBe(200);
    expect(await logOf(unverified)).toMatchObject({ status: 'processed', occurrences: 2 });
    expect(await profile()).toMatchObject({ card_b_verified: true });
    // Another delivery of an older fact (other bytes, an earlier Created): ignored.
    const older = { ...unverified, MessageId: crypto.randomUUID(), Created: new Date(Date.parse(unverified.Created) - 60_000).toISOString() };
    expect((await post(older)).status).toBe(200);
    expect(await logOf(older)).toMatchObject({ status: 'ignored', merchant_id: m.merchant.id });
    expect(await profile()).toMatchObject({ card_b_verified: true });
    // The connection again: the first one is kept.
    const again = { ...connected, MessageId: crypto.randomUUID(), Created: new Date().toISOString() };
    expect((await post(again)).status).toBe(200);
    expect(await logOf(again)).toMatchObject({ status: 'ignored', merchant_id: m.merchant.id });
    expect((await profile()).card_b_connected_at).toBe(new Date(connected.Created).toISOString());

    // The profile takes another card-b account: what card-b said of the previous one no longer shows.
    const other = crypto.randomUUID();
    expect((await api.call('POST', `${PP}/${id}/card-b/account`, { token: owner, body: { account_id: other } })).body.data).toMatchObject({ card_b_account_id: other, card_b_connected_at: null, card_b_verified: null });
  });

  test('an account no payment profile holds is stored as location_not_resolved; a verification event without Verified is stored failed; both answered 2xx', async () => {
    await sim.verifyAccount(crypto.randomUUID(), true);
    expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
    expect(await logOf(lastSent())).toMatchObject({ status: 'location_not_resolved', merchant_id: null });

    const m = await api.seed('cbacctbad');
    const owner = await api.ownerToken(m);
    const id = (await api.call('POST', PP, { token: owner, body: { name: 'Terminals' } })).body.data.id as string;
    const account = crypto.randomUUID();
    await api.call('POST', `${PP}/${id}/card-b/account`, { token: owner, body: { account_id: account } });
    const bad = { EventTypeId: 8194, EventData: { ConnectedAccountId: account }, Created: new Date().toISOString(), MessageId: crypto.randomUUID() };
    expect(await post(bad)).toMatchObject({ status: 200, body: { received: true } });
    expect(await logOf(bad)).toMatchObject({ status: 'failed', error: 'verification_unreadable', merchant_id: m.merchant.id });
  });

  test('an 8193 that arrived before the merchant attached the account (location_not_resolved) is replayed by operations (webhooks:replay) once it is attached; not from the back office', async () => {
    const replay = async (id: string) => {
      const cli = Bun.spawn(['bun', 'run', 'webhooks:replay', id], {
        cwd: `${import.meta.dir}/../../../../..`,
        env: { ...process.env, DATABASE_URL: api.env.DATABASE_URL, REDIS_URL: api.env.REDIS_URL, LOG_LEVEL: 'error' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const out = await new Response(cli.stdout).text();
      return { code: await cli.exited, last: out.trim() ? JSON.parse(out.trim().split('\n').at(-1)!) : null };
    };
    const m = await api.seed('cbacctlate');
    const owner = await api.ownerToken(m);
    const id = (await api.call('POST', PP, { token: owner, body: { name: 'Terminals' } })).body.data.id as string;
    const account = crypto.randomUUID();
    await sim.connectAccount(account);
    const connected = lastSent();
    const row = await logOf(connected);
    expect(row).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
    // Still no profile holds it: the replay resolves nobody again, the row stays as it was.
    expect(await replay(row.id)).toEqual({ code: 0, last: { id: row.id, status: 'location_not_resolved' } });

    await api.call('POST', `${PP}/${id}/card-b/account`, { token: owner, body: { account_id: account } });
    // The back office replays its merchant's failed events only: this row belongs to no merchant.
    expect((await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: owner })).status).toBe(404);
    expect(await replay(row.id)).toEqual({ code: 0, last: { id: row.id, status: 'processed' } });
    expect(await logOf(connected)).toMatchObject({ status: 'processed', merchant_id: m.merchant.id, error: null, occurrences: 1 });
    expect((await api.call('GET', `${PP}/${id}`, { token: owner })).body.data).toMatchObject({ card_b_account_id: account, card_b_connected_at: new Date(connected.Created).toISOString() });
    // Processed now: not replayed again.
    expect(await replay(row.id)).toEqual({ code: 1, last: null });
  }, 60_000);
});
