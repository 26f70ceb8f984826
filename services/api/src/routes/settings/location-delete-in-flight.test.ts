import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { whileWriting } from '../../testing/while-writing.ts';

let api: TestApi;
let a: DemoSeedResult;
let owner: string;
const BO = '/api/back-office';

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('locdel-a');
  owner = await api.ownerToken(a);
}, 60_000);
afterAll(() => api.close());

describe('a record created at a location whose delete is in flight', () => {
  // Each create found the location, then the delete committed: the insert hit the foreign key (or a
  // lock read found no row), a 500. Now the location is held from the check on: the 404 a later create gets.
  const creates: [string, (loc: string) => string, (loc: string) => unknown][] = [
    ['register', (loc) => `${BO}/pos/${loc}/registers`, () => ({ name: 'Till 2' })],
    ['drawer', (loc) => `${BO}/pos/${loc}/drawers`, () => ({ name: 'Drawer 2', kind: 'physical' })],
    ['fiscal module', (loc) => `${BO}/pos/${loc}/fdm-devices`, () => ({ fdm_id: `FDM-RACE-${crypto.randomUUID().slice(0, 8)}`, mode: 'software' })],
    ['table section', () => `${BO}/table-sections`, (loc) => ({ location_id: loc, name: 'Patio', tables: 4 })],
    ['kitchen station', () => `${BO}/devices/stations`, (loc) => ({ location_id: loc, name: 'Grill' })],
    ['fallback kitchen station', () => `${BO}/devices/stations`, (loc) => ({ location_id: loc, name: 'Pass', is_fallback: true })],
  ];
  for (const [what, path, body] of creates) {
    test(`a ${what}: 404 location, nothing written`, async () => {
      const loc = (await api.call('POST', `${BO}/settings/locations`, { token: owner, body: { name: `Going ${what}`, timezone: 'Europe/Brussels', country: 'BE' } })).body.data.id as string;
      const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
      const r = await whileWriting(
        tdb,
        async (t) => {
          await t.deleteFrom('locations').where('id', '=', loc).execute();
        },
        () => api.call('POST', path(loc), { token: owner, body: body(loc) }),
      );
      expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    });
  }
});
