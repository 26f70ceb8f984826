import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;
const setMerchant = (v: { pos_provider?: string | null; is_test?: boolean }) => api.deps.db.updateTable('merchants').set(v).where('id', '=', m.merchant.id).execute();
const setProvider = (v: { active?: boolean; test_only?: boolean }) => api.deps.db.updateTable('pos_providers').set(v).where('key', '=', 'firstparty').execute();
const marker = async () => (await api.deps.db.selectFrom('merchants').select('pos_provider').where('id', '=', m.merchant.id).executeTakeFirstOrThrow()).pos_provider;

beforeAll(async () => {
  // Staged as in production (spec 2 gating 2); the default outside production is tested below.
  api = await createTestApi({ env: { POS_PROVIDER_STAGING: 'true' } });
  m = await api.seed('provider');
  owner = await api.ownerToken(m);
});
afterAll(async () => {
  await setProvider({ active: true, test_only: true });
  await api.close();
});

describe('availability gating (spec 2)', () => {
  test('a test merchant sees and selects the first-party register; null clears the marker', async () => {
    await setMerchant({ pos_provider: null, is_test: true });
    expect((await api.call('GET', '/api/back-office/pos/provider-options', { token: owner })).body).toEqual({ data: [{ value: 'firstparty', label: 'First-party register' }] });
    expect((await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: 'firstparty' } })).body).toEqual({ status: 'success', pos_provider: 'firstparty' });
    expect(await marker()).toBe('firstparty');
    expect((await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: null } })).body).toEqual({ status: 'success', pos_provider: null });
    expect(await marker()).toBeNull();
  });

  test('test_only hides it from a non-test merchant: 403 Unsupported POS provider.', async () => {
    await setMerchant({ pos_provider: null, is_test: false });
    expect((await api.call('GET', '/api/back-office/pos/provider-options', { token: owner })).body).toEqual({ data: [] });
    expect(await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: 'firstparty' } })).toMatchObject({ status: 403, body: { message: 'Unsupported POS provider.' } });
    expect(await marker()).toBeNull();
    await setProvider({ test_only: false });
    expect((await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: 'firstparty' } })).status).toBe(200);
  });

  test('outside production providers are not staged: a merchant that signed up itself selects the register (active still counts)', async () => {
    const dev = await createTestApi();
    try {
      await setProvider({ active: true, test_only: true });
      await setMerchant({ pos_provider: null, is_test: false });
      const token = await dev.ownerToken(m);
      // Before: a self-registered merchant (never is_test) could never select it under `bun run dev`, so it had no register nor kitchen display.
      expect((await dev.call('GET', '/api/back-office/pos/provider-options', { token })).body).toEqual({ data: [{ value: 'firstparty', label: 'First-party register' }] });
      expect((await dev.call('GET', '/api/back-office/features', { token })).body.data).toMatchObject({ first_party_pos_selectable: true, test_mode: false });
      expect((await dev.call('POST', '/api/back-office/pos/select-provider', { token, body: { provider: 'firstparty' } })).body).toEqual({ status: 'success', pos_provider: 'firstparty' });
      await setProvider({ active: false });
      expect((await dev.call('POST', '/api/back-office/pos/select-provider', { token, body: { provider: 'firstparty' } })).status).toBe(403);
    } finally {
      await setProvider({ active: true, test_only: true });
      await setMerchant({ pos_provider: null, is_test: true });
      await dev.close();
    }
  });

  test('active is a kill switch checked first, even for a test merchant; unknown providers are refused', async () => {
    await setMerchant({ pos_provider: null, is_test: true });
    await setProvider({ active: false, test_only: false });
    expect(await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: 'firstparty' } })).toMatchObject({ status: 403, body: { message: 'Unsupported POS provider.' } });
    await setProvider({ active: true, test_only: true });
    expect(await api.call('POST', '/api/back-office/pos/select-provider', { token: owner, body: { provider: 'register-x' } })).toMatchObject({ status: 403, body: { message: 'Unsupported POS provider.' } });
  });

  test('needs EDIT_IN_HOUSE_CHANNEL', async () => {
    const viewer = await makeMember(api, m, ['VIEW_SALES_CHANNEL']);
    expect(await api.call('POST', '/api/back-office/pos/select-provider', { token: viewer.token, body: { provider: 'firstparty' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    // Merchant-wide (the register at every location): a member granted one location is refused, nothing
    // written (before: 200, switching the register off for every location).
    const marker = async () => (await api.deps.db.selectFrom('merchants').select('pos_provider').where('id', '=', m.merchant.id).executeTakeFirstOrThrow()).pos_provider;
    const before = await marker();
    const partial = await makeMember(api, m, ['EDIT_IN_HOUSE_CHANNEL'], { locationIds: [m.locations[1]!.id] });
    expect(await api.call('POST', '/api/back-office/pos/select-provider', { token: partial.token, body: { provider: before === null ? 'firstparty' : null } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await marker()).toBe(before);
    const editor = await makeMember(api, m, ['EDIT_IN_HOUSE_CHANNEL'], { allLocations: true });
    expect((await api.call('POST', '/api/back-office/pos/select-provider', { token: editor.token, body: { provider: 'firstparty' } })).status).toBe(200);
  });

  test('without the marker, back-office register groups answer 403; the device API does not', async () => {
    await setMerchant({ pos_provider: null, is_test: true });
    const r = await api.call('GET', `/api/back-office/pos/${m.locations[0]!.id}/drawers`, { token: owner });
    expect(r).toMatchObject({ status: 403, body: { message: 'The first-party register is not enabled for this merchant.' } });
    const device = await api.deviceToken(m, 'pos');
    expect((await api.call('GET', '/api/pos/bootstrap', { token: device, deviceKey: true })).status).toBe(200);
    await setMerchant({ pos_provider: 'firstparty' });
  });
});
