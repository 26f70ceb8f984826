import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startOAuthSimulator, type OAuthSimulator } from '../oauth/oauth-simulator.ts';
import { exchangeAuthorizationCode } from '../oauth/oauth-client.ts';
import { fromCents, RegisterCClient, toCents } from './register-c-client.ts';
import { startRegisterCSimulator, type RegisterCSimulator } from './register-c-simulator.ts';
import { providerError } from '../shared/provider-test-support.ts';

let sim: RegisterCSimulator;
let client: RegisterCClient;

beforeAll(() => {
  sim = startRegisterCSimulator();
  sim.addAccount('acct-1', ['bl-1']);
  sim.addToken('tok-c-1', 'acct-1');
  client = new RegisterCClient({ baseUrl: sim.url, accessToken: 'tok-c-1' });
});
afterAll(() => sim.stop());


describe('register-c client against the simulator over HTTP', () => {
  test('money converts between decimal strings and cents', () => {
    expect(toCents('12.50')).toBe(1250);
    expect(toCents('-0.05')).toBe(-5);
    expect(fromCents(1250)).toBe('12.50');
    expect(fromCents(5)).toBe('0.05');
    expect(fromCents(-105)).toBe('-1.05');
  });

  test('the account and location reads answer typed data', async () => {
    expect(await client.businesses()).toEqual([{ id: 'acct-1-biz', name: 'Business acct-1', currencyCode: 'EUR', locations: [{ id: 'bl-1', name: 'Location bl-1', timezone: 'Europe/Brussels' }] }]);
    expect(await client.accountProfiles('bl-1')).toEqual([
      { code: 'DINE', name: 'Dine in', type: 'LOCAL' },
      { code: 'TOGO', name: 'Take away', type: 'TAKEAWAY' },
    ]);
    expect(await client.taxPreview('bl-1', 'TOGO', 1060)).toEqual({ profileCode: 'TOGO', grossAmount: '10.60', netAmount: '10.00', taxAmount: '0.60' });
    expect(await client.floorplans('bl-1')).toEqual([{ id: 'fp-1', name: 'Main room' }]);
    expect((await client.tables('bl-1', 'fp-1')).map((t) => t.number)).toEqual([1, 2, 3]);
    expect(await client.menus('bl-1')).toEqual([{ id: 'menu-1', name: 'All day' }]);
    expect(await client.menu('bl-1', 'menu-1')).toEqual({
      id: 'menu-1',
      name: 'All day',
      sections: [
        { name: 'Mains', items: [{ sku: 'BURGER', name: 'Burger', price: '12.50' }, { sku: 'SALAD', name: 'Salad', price: '9.00' }] },
        { name: 'Drinks', items: [{ sku: 'COLA', name: 'Cola', price: '3.00' }] },
      ],
    });
    expect(await client.items('bl-1')).toContainEqual({ sku: 'COLA', name: 'Cola', price: '3.00', accountingGroupId: 'ag-drinks', taxRateId: 'tr-food' });
    expect((await client.richItems('bl-1'))[0]).toEqual({ sku: 'BURGER', name: 'Burger', price: '12.50', description: 'Burger from the house', imageUrl: null, allergenCodes: ['gluten'] });
    expect(await client.availability('bl-1')).toEqual([{ sku: 'BURGER', available: true }, { sku: 'SALAD', available: true }, { sku: 'COLA', available: true }]);
    expect((await client.paymentMethods('bl-1')).map((p) => p.id)).toEqual(['pm-cash', 'pm-card', 'pm-online']);
    expect(await client.modifiers('bl-1')).toEqual([{ id: 'mod-cheese', name: 'Extra cheese', price: '1.00' }]);
    expect(await client.discounts('bl-1')).toEqual([{ id: 'disc-staff', name: 'Staff', type: 'PERCENT', value: '10.00' }]);
    expect(await client.allergens('bl-1')).toHaveLength(2);
    expect(await client.taxRates('bl-1')).toHaveLength(2);
    expect(await client.accountingGroups('bl-1')).toHaveLength(2);
  });

  test('orders are idempotent by reference; payments close the check; the day adds up', async () => {
    const local = await client.localOrder('bl-1', { reference: 'ord-1', profileCode: 'DINE', tableNumber: 2, items: [{ sku: 'BURGER', quantity: 2 }] });
    expect(local).toMatchObject({ reference: 'ord-1', profileCode: 'DINE', tableNumber: 2, status: 'OPEN', total: '25.00', paid: '0.00', lines: [{ sku: 'BURGER', name: 'Burger', quantity: 2, price: '12.50' }] });
    expect((await client.localOrder('bl-1', { reference: 'ord-1', profileCode: 'DINE', tableNumber: 2, items: [{ sku: 'COLA', quantity: 1 }] })).id).toBe(local.id);
    expect((await client.tableChecks('bl-1', 2)).map((c) => c.id)).toEqual([local.id]);
    const togo = await client.toGoOrder('bl-1', { reference: 'ord-2', profileCode: 'TOGO', customerName: 'Ann', items: [{ sku: 'COLA', quantity: 1 }] });
    expect(togo).toMatchObject({ tableNumber: null, total: '3.00' });
    expect(await client.pay('bl-1', local.id, { reference: 'pay-1', paymentMethodId: 'pm-card', amountCents: 1000 })).toMatchObject({ paid: '10.00', status: 'OPEN' });
    expect(await client.pay('bl-1', local.id, { reference: 'pay-1', paymentMethodId: 'pm-card', amountCents: 1000 })).toMatchObject({ paid: '10.00' });
    expect(await providerError(client.pay('bl-1', local.id, { reference: 'pay-2', paymentMethodId: 'pm-card', amountCents: 1600 }))).toMatchObject({ kind: 'http', status: 422, code: 'amount_exceeds_balance' });
    expect(await client.pay('bl-1', local.id, { reference: 'pay-3', paymentMethodId: 'pm-cash', amountCents: 1500 })).toMatchObject({ paid: '25.00', status: 'CLOSED' });
    expect((await client.checks('bl-1', 'OPEN')).map((c) => c.id)).toEqual([togo.id]);
    const day = await client.daily('bl-1', local.openedAt.slice(0, 10));
    expect(day).toEqual({ date: local.openedAt.slice(0, 10), salesTotal: '28.00', checkCount: 2, payments: [{ paymentMethodId: 'pm-card', total: '10.00' }, { paymentMethodId: 'pm-cash', total: '15.00' }] });
    expect(await providerError(client.localOrder('bl-1', { reference: 'ord-3', profileCode: 'DINE', tableNumber: 2, items: [{ sku: 'NOPE', quantity: 1 }] }))).toMatchObject({ status: 422, code: 'unknown_sku' });
    expect(await providerError(client.localOrder('bl-1', { reference: 'ord-3', profileCode: 'DINE', tableNumber: 99, items: [{ sku: 'COLA', quantity: 1 }] }))).toMatchObject({ status: 422, code: 'unknown_table' });
  });

  test('unknown ids are 404; bad and expired tokens 401; provider down 5xx; unreachable is a network error', async () => {
    expect(await providerError(client.items('nope'))).toMatchObject({ kind: 'http', status: 404, code: 'location_not_found' });
    expect(await providerError(client.menu('bl-1', 'nope'))).toMatchObject({ kind: 'http', status: 404, code: 'menu_not_found' });
    expect(await providerError(client.tables('bl-1', 'nope'))).toMatchObject({ kind: 'http', status: 404, code: 'floorplan_not_found' });
    expect(await providerError(new RegisterCClient({ baseUrl: sim.url, accessToken: 'wrong' }).businesses())).toMatchObject({ kind: 'http', status: 401, code: 'invalid_token' });
    sim.addToken('tok-old', 'acct-1');
    sim.expireToken('tok-old');
    expect(await providerError(new RegisterCClient({ baseUrl: sim.url, accessToken: 'tok-old' }).businesses())).toMatchObject({ kind: 'http', status: 401, code: 'token_expired', message: 'register-c: The access token has expired' });
    sim.failWith = 503;
    try {
      expect(await providerError(client.businesses())).toMatchObject({ kind: 'http', status: 503 });
    } finally {
      sim.failWith = null;
    }
    expect((await providerError(new RegisterCClient({ baseUrl: 'http://127.0.0.1:9', accessToken: 'x', timeoutMs: 2000 }).businesses())).kind).toBe('network');
  });

  test('renewToken: a 401 asks for another token once and retries the call with it; later calls keep it', async () => {
    sim.addToken('tok-stale', 'acct-1');
    sim.expireToken('tok-stale');
    sim.addToken('tok-fresh', 'acct-1');
    const asked: string[] = [];
    const renewing = new RegisterCClient({ baseUrl: sim.url, accessToken: 'tok-stale', renewToken: async (rejected) => (asked.push(rejected), 'tok-fresh') });
    const from = sim.requests.length;
    expect((await renewing.businesses())[0]!.id).toBe('acct-1-biz');
    expect(await renewing.floorplans('bl-1')).toEqual([{ id: 'fp-1', name: 'Main room' }]);
    expect(asked).toEqual(['tok-stale']);
    expect(sim.requests.slice(from)).toEqual([
      { method: 'GET', path: '/v1/businesses' },
      { method: 'GET', path: '/v1/businesses' },
      { method: 'GET', path: '/v1/locations/bl-1/floorplans' },
    ]);
    // No other token, or the renewed one refused as well: the 401 is the call's failure, no loop.
    const none = new RegisterCClient({ baseUrl: sim.url, accessToken: 'tok-stale', renewToken: async (rejected) => (asked.push(rejected), null) });
    expect(await providerError(none.businesses())).toMatchObject({ status: 401, code: 'token_expired' });
    const bad = new RegisterCClient({ baseUrl: sim.url, accessToken: 'tok-stale', renewToken: async (rejected) => (asked.push(rejected), 'tok-unknown') });
    expect(await providerError(bad.businesses())).toMatchObject({ status: 401, code: 'invalid_token' });
    expect(asked).toEqual(['tok-stale', 'tok-stale', 'tok-stale']);
  });

  test('a token issued by the OAuth simulator is accepted through introspection', async () => {
    const oauth: OAuthSimulator = startOAuthSimulator({ provider: 'register-c', clientId: 'rc-client', clientSecret: 'rc-client-secret' });
    const api = startRegisterCSimulator({ introspect: { url: oauth.url, clientId: 'rc-client', clientSecret: 'rc-client-secret' } });
    try {
      const tokens = await exchangeAuthorizationCode({ provider: 'register-c', baseUrl: oauth.url, clientId: 'rc-client', clientSecret: 'rc-client-secret' }, oauth.issueCode({ accountId: 'acct-dev' }));
      expect((await new RegisterCClient({ baseUrl: api.url, accessToken: tokens.accessToken }).businesses())[0]!.id).toBe('acct-dev-biz');
      expect(await providerError(new RegisterCClient({ baseUrl: api.url, accessToken: 'at_register-c_forged' }).businesses())).toMatchObject({ status: 401, code: 'invalid_token' });
      // The dev consent screen consents at once: back to the redirect URI with a code and the state.
      const consent = await fetch(`${oauth.url}/oauth/authorize?response_type=code&client_id=rc-client&redirect_uri=${encodeURIComponent('https://bo.test/cb')}&state=s-1&account_id=acct-x`, { redirect: 'manual' });
      expect(consent.status).toBe(302);
      const back = new URL(consent.headers.get('location')!);
      expect([back.origin + back.pathname, back.searchParams.get('state')]).toEqual(['https://bo.test/cb', 's-1']);
      expect((await exchangeAuthorizationCode({ provider: 'register-c', baseUrl: oauth.url, clientId: 'rc-client', clientSecret: 'rc-client-secret', redirectUri: 'https://bo.test/cb' }, back.searchParams.get('code')!)).accountId).toBe('acct-x');
      expect((await fetch(`${oauth.url}/oauth/authorize?response_type=code&client_id=other&redirect_uri=x`, { redirect: 'manual' })).status).toBe(400);
    } finally {
      await api.stop();
      await oauth.stop();
    }
  });
});
