import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/**
 * An attacker's pass over payment profiles (spec 1 "Settings", permissions scoped to the granted
 * locations, section 5): a member granted one location must not rewire the payments of another.
 */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
const P = '/api/back-office/settings/payment-profiles';
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const snapshot = async () => ({
  profiles: await tdb().selectFrom('payment_profiles').selectAll().orderBy('id').execute(),
  locations: await tdb().selectFrom('locations').select(['id', 'payment_profile_id']).orderBy('id').execute(),
});

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pp-adv');
  other = await api.seed('pp-adv-other');
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(() => api.close());

describe('payment profiles, adversarial', () => {
  test('a member granted one location cannot change the accounts, the default or the existence of a profile another location uses; within the grant they can', async () => {
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const create = async (name: string) => (await api.call('POST', P, { token: owner, body: { name } })).body.data as { id: string; is_default: boolean };
    const main = await create('Main'); // the first: the default, used by every location naming none (loc0)
    expect(main.is_default).toBe(true);
    const station = await create('Station');
    const centreOnly = await create('Centre only');
    const unused = await create('Unused');
    expect((await api.call('PUT', `/api/back-office/settings/locations/${loc1}`, { token: owner, body: { payment_profile_id: station.id } })).status).toBe(200);
    const member = await makeMember(api, m, ['VIEW_PAYMENT_PROFILES', 'EDIT_PAYMENT_PROFILES', 'DELETE_PAYMENT_PROFILES'], { locationIds: [loc1] });
    const as = (method: string, path: string, body?: unknown) => api.call(method, path, { token: member.token, body });
    const before = await snapshot();

    const refused = [
      ['POST', `${P}/${main.id}/card-b/account`, { account_id: 'attacker-account' }], // loc0's payments through the default
      ['POST', `${P}/${centreOnly.id}/default`, undefined], // loc0 (naming none) would move to it
      ['POST', `${P}/${station.id}/default`, undefined], // the same, even for a profile the member reaches
      ['DELETE', `${P}/${main.id}`, undefined],
      ['POST', `${P}/${main.id}/card-a/url`, {}],
      ['POST', `${P}/${main.id}/card-a/account-session`, undefined],
      ['PUT', `${P}/${main.id}/card-a/descriptor`, { statement_descriptor: 'ATTACKER' }],
      ['PUT', `${P}/${main.id}/card-a/payout-schedule`, { interval: 'manual' }],
    ] as const;
    for (const [method, path, body] of refused) {
      expect([method, path, await as(method, path, body)]).toMatchObject([method, path, { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } }]);
    }
    expect(await snapshot()).toEqual(before);

    // loc0 names a profile of its own: deleting it would move loc0 back to the default.
    expect((await api.call('PUT', `/api/back-office/settings/locations/${loc0}`, { token: owner, body: { payment_profile_id: centreOnly.id } })).status).toBe(200);
    expect(await as('DELETE', `${P}/${centreOnly.id}`)).toMatchObject({ status: 403 });
    expect(await as('POST', `${P}/${centreOnly.id}/card-b/account`, { account_id: 'attacker-account' })).toMatchObject({ status: 403 });

    // Within the grant: the profile only loc1 uses, and one nobody uses.
    expect(await as('POST', `${P}/${station.id}/card-b/account`, { account_id: 'station-account' })).toMatchObject({ status: 200, body: { data: { card_b_account_id: 'station-account' } } });
    expect(await as('DELETE', `${P}/${unused.id}`)).toMatchObject({ status: 200, body: { status: 'success' } });
    // A rename changes no location's payments.
    expect(await as('PUT', `${P}/${main.id}`, { name: 'Main (renamed)' })).toMatchObject({ status: 200 });

    // The owner (every location) still does all of it; another merchant's profile stays a 404.
    expect(await api.call('POST', `${P}/${centreOnly.id}/default`, { token: owner })).toMatchObject({ status: 200, body: { data: { is_default: true } } });
    const foreign = (await api.call('POST', P, { token: await api.ownerToken(other), body: { name: 'Theirs' } })).body.data.id;
    expect(await as('POST', `${P}/${foreign}/card-b/account`, { account_id: 'x' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the payment profile you requested.' } });
    expect(await api.call('POST', `${P}/${foreign}/default`, { token: owner })).toMatchObject({ status: 404 });
  });
});
