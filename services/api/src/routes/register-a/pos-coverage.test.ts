import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startRegisterASimulator, type RegisterASimulator } from '@pos/providers/register-a/register-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** `GET /back-office/reports/pos-coverage` answered from the real integration records (issue 17 item 6). */
let api: TestApi;
let sim: RegisterASimulator;
let m: DemoSeedResult;
let owner: string;
const coverage = (token = owner) => api.call('GET', '/api/back-office/reports/pos-coverage', { token });
const loc0 = () => m.locations[0]!.id;
const loc1 = () => m.locations[1]!.id;

beforeAll(async () => {
  sim = startRegisterASimulator({ keys: { prod: 'prod-key-cov', staging: 'staging-key-cov' } });
  api = await createTestApi({ env: { REGISTER_A_BASE_URL: sim.url, INTEGRATION_TOKEN_KEY: 'ef'.repeat(32) } });
  m = await api.seed('cov-ra');
  await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', m.merchant.id).execute();
  owner = await api.ownerToken(m);
});
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await api.close();
  await sim.stop();
});

describe('pos-coverage from the integration records', () => {
  test('a location\'s register-a record: not connected until a store is selected, then connected; others null', async () => {
    const s = sim.setup();
    await api.call('POST', `/api/back-office/register-a/${loc0()}/enable`, { token: owner, body: { token: s.token } });
    expect((await coverage()).body).toEqual({ pos_coverage: { [loc0()]: { pos_provider: 'register-a', pos_connected: false }, [loc1()]: { pos_provider: null, pos_connected: false } } });
    await api.call('POST', `/api/back-office/register-a/${loc0()}/stores/select`, { token: owner, body: { store_id: s.storeIds[0] } });
    expect((await coverage()).body).toEqual({ pos_coverage: { [loc0()]: { pos_provider: 'register-a', pos_connected: true }, [loc1()]: { pos_provider: null, pos_connected: false } } });
    // Only the caller's granted locations.
    const member = await makeMember(api, m, ['VIEW_POS_REPORTS'], { locationIds: [loc0()] });
    expect((await coverage(member.token)).body).toEqual({ pos_coverage: { [loc0()]: { pos_provider: 'register-a', pos_connected: true } } });
  });

  test('a merchant-scoped integration answers for every location, ahead of register-a', async () => {
    const id = Bun.randomUUIDv7();
    await api.deps.db
      .insertInto('integration_connections')
      .values({ id, provider: 'register-c', external_ref: `acct-${id}`, merchant_id: m.merchant.id, status: 'disabled', settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() })
      .execute();
    expect((await coverage()).body).toEqual({ pos_coverage: { [loc0()]: { pos_provider: 'register-c', pos_connected: false }, [loc1()]: { pos_provider: 'register-c', pos_connected: false } } });
    await api.deps.db.updateTable('integration_connections').set({ status: 'active' }).where('id', '=', id).execute();
    expect((await coverage()).body.pos_coverage[loc1()]).toEqual({ pos_provider: 'register-c', pos_connected: true });
    await api.deps.db.deleteFrom('integration_connections').where('id', '=', id).execute();
  });

  test('of the merchant-scoped records, a live one answers before a disabled one kept beside it', async () => {
    const rows = ['platform-a', 'register-b'].map((provider, i) => ({ id: Bun.randomUUIDv7(), provider, external_ref: `cov-${provider}-${crypto.randomUUID()}`, merchant_id: m.merchant.id, status: i === 0 ? 'disabled' : 'active', settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() }));
    await api.deps.db.insertInto('integration_connections').values(rows).execute();
    try {
      // Before: platform-a (first in the order) answered, disconnected, for every location.
      expect((await coverage()).body).toEqual({ pos_coverage: { [loc0()]: { pos_provider: 'register-b', pos_connected: true }, [loc1()]: { pos_provider: 'register-b', pos_connected: true } } });
    } finally {
      await api.deps.db.deleteFrom('integration_connections').where('id', 'in', rows.map((r) => r.id)).execute();
    }
  });

  test('a failed integration lookup is an error response, never pos_connected false', async () => {
    await sql`alter table integration_connections rename to integration_connections_x`.execute(api.deps.db);
    try {
      const r = await coverage();
      expect(r.status).toBe(500);
      expect(r.text).not.toContain('pos_connected');
    } finally {
      await sql`alter table integration_connections_x rename to integration_connections`.execute(api.deps.db);
    }
  });
});
