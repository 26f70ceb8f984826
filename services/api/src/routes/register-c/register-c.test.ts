import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
let loc: string;

const rows = (merchantId: string) =>
  api.deps.db.selectFrom('register_c_mappings').select(['location_id', 'register_c_location_id', 'status']).where('merchant_id', '=', merchantId).orderBy('location_id').execute();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('register-c-map');
  other = await api.seed('register-c-map-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  loc = m.locations[0]!.id;
}, 60_000);
afterAll(async () => {
  await api.close();
});

describe('register-c mappings', () => {
  test('without a register-c connection a write is a 404 on the integration; nothing written', async () => {
    expect(await api.call('PUT', `/api/back-office/register-c/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-1' } })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the integration you requested.' },
    });
    expect(await rows(m.merchant.id)).toEqual([]);
    expect((await api.call('GET', '/api/back-office/register-c/mappings', { token: owner })).body).toEqual({ data: [] });
  });

  test('create, update, pause, resume, list, remove', async () => {
    await api.deps.db
      .insertInto('integration_connections')
      .values({ id: Bun.randomUUIDv7(), provider: 'register-c', external_ref: `rc-${Bun.randomUUIDv7()}`, merchant_id: m.merchant.id, settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() })
      .execute();
    const put = await api.call('PUT', `/api/back-office/register-c/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-1' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: 'success', data: { upvendo_location_id: loc, register_c_location_id: 'bl-1', status: 'active' } });
    const upd = await api.call('PUT', `/api/back-office/register-c/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-2' } });
    expect(upd.body.data).toMatchObject({ register_c_location_id: 'bl-2', status: 'active' });
    expect(await rows(m.merchant.id)).toEqual([{ location_id: loc, register_c_location_id: 'bl-2', status: 'active' }]);

    expect((await api.call('POST', `/api/back-office/register-c/mappings/${loc}/pause`, { token: owner })).body.data).toMatchObject({ status: 'paused' });
    expect(await rows(m.merchant.id)).toEqual([{ location_id: loc, register_c_location_id: 'bl-2', status: 'paused' }]);
    const list = await api.call('GET', '/api/back-office/register-c/mappings', { token: owner });
    expect(list.body.data).toEqual([{ upvendo_location_id: loc, register_c_location_id: 'bl-2', status: 'paused', updated_at: expect.any(String) }]);
    expect((await api.call('POST', `/api/back-office/register-c/mappings/${loc}/resume`, { token: owner })).body.data).toMatchObject({ status: 'active' });

    expect((await api.call('DELETE', `/api/back-office/register-c/mappings/${loc}`, { token: owner })).body).toEqual({ status: 'success' });
    expect(await rows(m.merchant.id)).toEqual([]);
    expect(await api.call('DELETE', `/api/back-office/register-c/mappings/${loc}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the mapping you requested.' } });
    expect((await api.call('POST', `/api/back-office/register-c/mappings/${loc}/pause`, { token: owner })).status).toBe(404);
  });

  test('one register-c location maps to one of our locations: 422, nothing changed', async () => {
    const second = m.locations[1]!.id;
    await api.call('PUT', `/api/back-office/register-c/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-9' } });
    expect(await api.call('PUT', `/api/back-office/register-c/mappings/${second}`, { token: owner, body: { register_c_location_id: 'bl-9' } })).toMatchObject({
      status: 422,
      body: { errors: { register_c_location_id: ['The register-c location is already mapped to another location.'] } },
    });
    expect(await rows(m.merchant.id)).toEqual([{ location_id: loc, register_c_location_id: 'bl-9', status: 'active' }]);
    await api.call('DELETE', `/api/back-office/register-c/mappings/${loc}`, { token: owner });
  });

  test("isolation: another merchant's location and a non-id are 404; permission MIS on writes", async () => {
    expect(await api.call('PUT', `/api/back-office/register-c/mappings/${other.locations[0]!.id}`, { token: owner, body: { register_c_location_id: 'bl-x' } })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the location you requested.' },
    });
    expect((await api.call('PUT', '/api/back-office/register-c/mappings/not-an-id', { token: owner, body: { register_c_location_id: 'bl-x' } })).status).toBe(404);
    expect((await api.call('GET', '/api/back-office/register-c/mappings', { token: otherOwner })).body).toEqual({ data: [] });
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('PUT', `/api/back-office/register-c/mappings/${loc}`, { token: viewer.token, body: { register_c_location_id: 'bl-v' } })).toMatchObject({
      status: 403,
      body: { message: 'Unauthorized: Insufficient permissions' },
    });
    expect((await api.call('GET', '/api/back-office/register-c/mappings', { token: viewer.token })).status).toBe(200);
    expect(await rows(m.merchant.id)).toEqual([]);
    expect(await rows(other.merchant.id)).toEqual([]);
  });
});

describe('register-c writes racing each other', () => {
  test('one register-c location mapped from two locations at once: one 200, one 422, never a 500', async () => {
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    for (let round = 0; round < 6; round++) {
      const external = `bl-race-${round}-${crypto.randomUUID().slice(0, 6)}`;
      const answers = await Promise.all([l0, l1].map((l) => api.call('PUT', `/api/back-office/register-c/mappings/${l}`, { token: owner, body: { register_c_location_id: external } })));
      // Before: a 500 in most rounds (the unique key, between the check and the write).
      expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(answers.find((r) => r.status === 422)!.body.errors).toEqual({ register_c_location_id: ['The register-c location is already mapped to another location.'] });
    }
  });

  test('the first schedule written twice at once: both 200, one schedule', async () => {
    const conn = await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow();
    for (let round = 0; round < 4; round++) {
      await api.deps.db.deleteFrom('integration_auto_syncs').where('connection_id', '=', conn.id).execute();
      const answers = await Promise.all(['03:00', '04:30'].map((t) => api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: t } })));
      // Before: one 500 (both found no row to lock and inserted).
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect(await api.deps.db.selectFrom('integration_auto_syncs').select('sync_time').where('connection_id', '=', conn.id).execute()).toHaveLength(1);
    }
  });
});

