import { afterAll, beforeAll, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { SETUP_STEPS } from '@pos/core/settings/setup-status';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const status = async (token: string) => {
  const r = await api.call('GET', '/api/back-office/setup-status', { token });
  expect(r.status).toBe(200);
  return r.body.data as { steps: { key: string; label: string; done: boolean }[]; completed: number; total: number; complete: boolean };
};
const doneOf = (s: Awaited<ReturnType<typeof status>>) => Object.fromEntries(s.steps.map((x) => [x.key, x.done]));
const PP = '/api/back-office/settings/payment-profiles';
/** A payment profile with a card-b account, through the API (the merchant's first profile is its default). */
async function cardBProfile(token: string, name: string, account: string): Promise<string> {
  const p = await api.call('POST', PP, { token, body: { name } });
  expect(p.status).toBe(201);
  expect((await api.call('POST', `${PP}/${p.body.data.id}/card-b/account`, { token, body: { account_id: account } })).status).toBe(200);
  return p.body.data.id;
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('setup-a');
  b = await api.seed('setup-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

test('setup steps follow the records, per merchant', async () => {
  const s0 = await status(owner);
  expect(s0.steps.map((x) => x.key)).toEqual(SETUP_STEPS.map((x) => x.key));
  expect(s0.total).toBe(7);
  expect(doneOf(s0)).toMatchObject({ location: true, catalog: true, payments: false, branding: false, language: false });
  expect(s0.completed).toBe(s0.steps.filter((x) => x.done).length);
  expect(s0.complete).toBe(false);

  await api.call('POST', '/api/back-office/settings/branding-profiles', { token: owner, body: { name: 'Main' } });
  await api.call('POST', '/api/back-office/settings/languages', { token: owner, body: { code: 'nl', name: 'Nederlands' } });
  await cardBProfile(owner, 'Terminals', 'cb-setup-a');
  const s1 = await status(owner);
  expect(doneOf(s1)).toMatchObject({ payments: true, branding: true, language: true });
  expect(s1.completed).toBe(s0.completed + 3);

  // Merchant b's records are its own.
  expect(doneOf(await status(ownerB))).toMatchObject({ branding: false, language: false });
  expect((await api.call('GET', '/api/back-office/setup-status')).status).toBe(401);
});

test('payment onboarding: ready per location once a terminal of its provider is bound', async () => {
  const c = await api.seed('setup-c');
  const ownerC = await api.ownerToken(c);
  const tdb = tdbOf(c);
  const [l0, l1] = [c.locations[0]!.id, c.locations[1]!.id];
  await tdb.updateTable('devices').set({ card_b_terminal_id: null, card_a_reader_id: null, platform_a_device_id: null }).execute();
  const r0 = await api.call('GET', '/api/back-office/payment-onboarding-status', { token: ownerC });
  expect(r0.status).toBe(200);
  expect(r0.body.data.complete).toBe(false);
  expect(r0.body.data.locations.find((l: { location_id: string }) => l.location_id === l0)).toEqual({ location_id: l0, name: expect.any(String), in_person_provider: null, terminals: 0, ready: false });
  // The default payment profile (every location's, none chose another) has a card-b account.
  await cardBProfile(ownerC, 'Terminals', 'cb-setup-c');
  const pos = c.devices.find((d) => d.type === 'pos' && d.location_id === l0)!;
  await tdb.updateTable('devices').set({ card_b_terminal_id: 'T-1' }).where('id', '=', pos.id).execute();
  const r1 = await api.call('GET', '/api/back-office/payment-onboarding-status', { token: ownerC });
  const byId = Object.fromEntries(r1.body.data.locations.map((l: { location_id: string }) => [l.location_id, l]));
  expect(byId[l0]).toMatchObject({ in_person_provider: 'card-b', terminals: 1, ready: true });
  expect(byId[l1]).toMatchObject({ in_person_provider: 'card-b', terminals: 0, ready: false });
  expect(r1.body.data.complete).toBe(false);
  // Merchant b sees only its own locations.
  const rb = await api.call('GET', '/api/back-office/payment-onboarding-status', { token: ownerB });
  expect(rb.body.data.locations.map((l: { location_id: string }) => l.location_id).sort()).toEqual(b.locations.map((l) => l.id).sort());
});
