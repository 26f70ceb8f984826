import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { normaliseVat, verifyVat } from '@pos/core/settings/vat-verify';
import { startVatCheckSimulator } from '@pos/providers/vat-check/vat-check-simulator';
import { VatCheckClient } from '@pos/providers/vat-check/vat-check-client';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let owner: string;
let sim: ReturnType<typeof startVatCheckSimulator>;
const P = '/api/back-office/settings/vat/verify';
const verify = (body: Record<string, unknown>, token = owner) => api.call('POST', P, { token, body });

beforeAll(async () => {
  sim = startVatCheckSimulator({ unavailableCountries: ['DE'] });
  api = await createTestApi({ env: { VAT_CHECK_BASE_URL: sim.url } });
  a = await api.seed('vat-a');
  owner = await api.ownerToken(a);
  await fetch(`${sim.url}/_sim/numbers`, { method: 'POST', body: JSON.stringify({ countryCode: 'NL', vatNumber: '123456789B01', name: 'Dutch Shop BV' }) });
}, 60_000);
afterAll(async () => {
  await api.close();
  sim.stop();
});

describe('POST /back-office/settings/vat/verify', () => {
  test('valid and invalid numbers as the registry answers, with the number normalised', async () => {
    const before = sim.requests.length;
    expect(await verify({ vat_number: 'BE 0123.456.749' })).toMatchObject({
      status: 200,
      body: { data: { result: 'valid', country_code: 'BE', vat_number: '0123456749', name: 'Company 0123456749', address: 'Street 1, 1000 City (BE)' } },
    });
    expect((await verify({ vat_number: '123456789b01', country_code: 'nl' })).body).toEqual({
      data: { result: 'valid', country_code: 'NL', vat_number: '123456789B01', name: 'Dutch Shop BV', address: 'Street 1, 1000 City (NL)' },
    });
    expect((await verify({ vat_number: 'BE0123456789' })).body).toEqual({ data: { result: 'invalid', country_code: 'BE', vat_number: '0123456789', name: null, address: null } });
    expect(sim.requests.slice(before)).toEqual([
      { countryCode: 'BE', vatNumber: '0123456749' },
      { countryCode: 'NL', vatNumber: '123456789B01' },
      { countryCode: 'BE', vatNumber: '0123456789' },
    ]);
  });

  test('fails open: a registry down is `unavailable`, outside the EU or without a country is `skipped`, a bad shape `invalid` (no call)', async () => {
    const before = sim.requests.length;
    expect((await verify({ vat_number: 'DE123456789' })).body.data).toMatchObject({ result: 'unavailable', country_code: 'DE' });
    expect((await verify({ vat_number: '12-3456789', country_code: 'US' })).body.data).toMatchObject({ result: 'skipped', country_code: 'US' });
    expect((await verify({ vat_number: '0123456749' })).body.data).toMatchObject({ result: 'skipped', country_code: null });
    expect((await verify({ vat_number: 'BE' })).body.data).toMatchObject({ result: 'invalid', vat_number: '' });
    expect(sim.requests.length).toBe(before + 1);
    // Greece is EL at the registry.
    expect(normaliseVat('GR 123456789')).toEqual({ country: 'EL', number: '123456789' });
  });

  test('the client answers `unavailable` when the service is down or slow, and `skipped` without a service', async () => {
    const down = startVatCheckSimulator();
    const url = down.url;
    down.stop();
    expect(await verifyVat(new VatCheckClient({ baseUrl: url }), { vat_number: 'BE0123456749' })).toMatchObject({ result: 'unavailable' });
    const slow = startVatCheckSimulator({ delayMs: 500 });
    expect(await new VatCheckClient({ baseUrl: slow.url, timeoutMs: 100 }).check('BE', '0123456749')).toEqual({ result: 'unavailable', reason: 'timeout' });
    slow.stop();
    expect(await verifyVat(null, { vat_number: 'BE0123456749' })).toEqual({ result: 'skipped', country_code: 'BE', vat_number: '0123456749', name: null, address: null });
  });

  test('input is checked (422), back-office auth is needed (401), and 30 per minute per user then 429', async () => {
    expect((await verify({ vat_number: '' })).status).toBe(422);
    expect((await verify({ vat_number: 'x'.repeat(33) })).status).toBe(422);
    expect((await verify({ vat_number: 'BE0123456749', country_code: 'BEL' })).status).toBe(422);
    expect((await api.call('POST', P, { body: { vat_number: 'BE0123456749' } })).status).toBe(401);
    const kiosk = await api.deviceToken(a, 'kiosk');
    expect((await api.call('POST', P, { token: kiosk, deviceKey: true, body: { vat_number: 'BE0123456749' } })).status).toBe(403);

    const member = await limitedUserToken(api, a, [], []);
    // A fixed one-minute window: start the 31 calls well inside one.
    const msLeft = 60_000 - (Date.now() % 60_000);
    if (msLeft < 10_000) await Bun.sleep(msLeft + 50);
    for (let i = 0; i < 30; i++) expect((await verify({ vat_number: 'US1' }, member)).status).toBe(200);
    expect(await verify({ vat_number: 'US1' }, member)).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    // Counted per user: the owner is not affected.
    expect((await verify({ vat_number: 'US1' })).status).toBe(200);
  });
});
