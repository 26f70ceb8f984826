import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * The card-a customer of a billing profile and the connected account of a payment profile are made once,
 * with no database transaction open while card-a answers (DESIGN section 2). card-a is reached through a
 * gate (a real HTTP server in front of the simulator) that can hold the create until the test lets it go.
 */
let api: TestApi;
let cardA: CardASimulator;
let gate: ReturnType<typeof Bun.serve>;
let m: DemoSeedResult;
let owner: string;
const SECRET = 'sk_test_object_once';
const held: { path: string; key: string | null; release: () => void }[] = [];
let holding: string | null = null;
let failNext: string | null = null;
const creates: { path: string; key: string | null }[] = [];

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: SECRET });
  gate = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url);
      const body = req.method === 'GET' ? undefined : await req.text();
      if (req.method === 'POST' && (url.pathname === '/v1/customers' || url.pathname === '/v1/accounts')) {
        creates.push({ path: url.pathname, key: req.headers.get('idempotency-key') });
        if (failNext === url.pathname) {
          failNext = null;
          return Response.json({ error: { type: 'api_error', message: 'Something went wrong on our end.' } }, { status: 500 });
        }
        if (holding === url.pathname) await new Promise<void>((release) => held.push({ path: url.pathname, key: req.headers.get('idempotency-key'), release }));
      }
      return fetch(`${cardA.url}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body });
    },
  });
  api = await createTestApi({ env: { CARD_A_SECRET_KEY: SECRET, CARD_A_BASE_URL: `http://127.0.0.1:${gate.port}`, APP_URL: 'https://app.example.test' } });
  m = await api.seed('object-once');
  owner = await api.ownerToken(m);
}, 60_000);

afterAll(async () => {
  for (const h of held) h.release();
  await api.close();
  gate.stop(true);
  await cardA.stop();
});

const until = async (what: () => boolean) => {
  for (let i = 0; i < 500 && !what(); i++) await Bun.sleep(10);
  expect(what()).toBe(true);
};

/** Writes the row with a 500 ms lock timeout: fails while another transaction holds the row. */
async function writeRow(table: 'billing_profiles' | 'payment_profiles', id: string) {
  await bindTenant(api.deps.db, m.merchant.tenant_database)
    .transaction()
    .execute(async (tx) => {
      await sql`set local lock_timeout = '500ms'`.execute(tx);
      await tx.updateTable(table).set({ updated_at: new Date() }).where('id', '=', id).execute();
    });
}

const cases = [
  { name: 'billing profile card-a customer', table: 'billing_profiles' as const, base: '/api/back-office/settings/billing-profiles', create: '/v1/customers', lock: 'billing_customer_', column: 'card_a_customer_id' as const, prefix: /^cus_/ },
  { name: 'payment profile connected account', table: 'payment_profiles' as const, base: '/api/back-office/settings/payment-profiles', create: '/v1/accounts', lock: 'payment_profile_account_', column: 'card_a_account_id' as const, prefix: /^acct_/ },
];

describe.each(cases)('$name', (c) => {
  const first = (id: string) =>
    c.table === 'billing_profiles'
      ? api.call('POST', `${c.base}/${id}`, { token: owner, body: { payment_method: 'pm_card_visa' } })
      : api.call('POST', `${c.base}/${id}/card-a/url`, { token: owner, body: {} });
  const objectOf = (r: { body: any }) => (c.table === 'billing_profiles' ? r.body.data.card_a_customer_id : r.body.data.account_id) as string;

  test('no transaction holds the profile row while card-a makes the object; it is stored once made', async () => {
    const id = (await api.call('POST', c.base, { token: owner, body: { name: `Held ${c.table}` } })).body.data.id as string;
    holding = c.create;
    const pending = first(id);
    await until(() => held.length === 1);
    holding = null;
    // The provider is still answering: another writer of the profile is not kept waiting.
    await writeRow(c.table, id);
    expect(held[0]!.key).toStartWith(`${c.lock}${id}_`);
    held.shift()!.release();
    const r = await pending;
    expect(r.status).toBe(200);
    expect(objectOf(r)).toMatch(c.prefix);
    const row = await bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom(c.table).select(c.column).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row[c.column]).toBe(objectOf(r));
  });

  test('two first calls at once: one object at card-a, both answer it', async () => {
    const id = (await api.call('POST', c.base, { token: owner, body: { name: `Twice ${c.table}` } })).body.data.id as string;
    const before = creates.length;
    const [x, y] = await Promise.all([first(id), first(id)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect(objectOf(x)).toBe(objectOf(y));
    expect(creates.slice(before).filter((k) => k.path === c.create)).toHaveLength(1);
  });

  test('a first create card-a failed is tried again with a key of its own (card-a replays a key\'s failure for a day)', async () => {
    const id = (await api.call('POST', c.base, { token: owner, body: { name: `Failed once ${c.table}` } })).body.data.id as string;
    failNext = c.create;
    expect((await first(id)).status).toBeGreaterThanOrEqual(500);
    const before = creates.length;
    const again = await first(id);
    expect(again.status).toBe(200);
    const keys = creates.filter((k) => k.path === c.create).slice(-2).map((k) => k.key);
    expect(creates.length).toBe(before + 1);
    expect(keys[0]).not.toBe(keys[1]);
  });

  test('another merchant\'s profile is a 404 and nothing reaches card-a', async () => {
    const other = await api.seed(`object-once-other-${c.table.replace("_", "-")}`);
    const id = (await api.call('POST', c.base, { token: await api.ownerToken(other), body: { name: 'Theirs' } })).body.data.id as string;
    const before = creates.length;
    expect((await first(id)).status).toBe(404);
    expect(creates.length).toBe(before);
  });
});
