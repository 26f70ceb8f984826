import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { limitedUserToken } from './devices/test-helpers.ts';

/**
 * Spec 1 section 5.8: permissions are "scoped to the locations granted to the user". The integration
 * routes the spec gives no permission (reads, tests, menu pushes of delivery-a/b, register-a/c/d) still
 * answer only at a location of the caller's grant: a member granted location [1] alone is 403 at
 * location [0], whatever the route does there; a location of no merchant of theirs stays 404.
 */
let api: TestApi;
let m: DemoSeedResult;
let member: string;
const DENIED = [403, 'Unauthorized: Insufficient permissions'];

beforeAll(async () => {
  api = await createTestApi({ env: { INTEGRATION_TOKEN_KEY: 'd'.repeat(64) } });
  m = await api.seed('int-grant');
  member = await limitedUserToken(api, m, [], [m.locations[1]!.id]);
}, 60_000);
afterAll(() => api.close());

const routes = (loc: string): [string, string][] => [
  ['GET', `/api/back-office/delivery-a/${loc}`],
  ['GET', `/api/back-office/delivery-a/${loc}/logs`],
  ['GET', `/api/back-office/delivery-a/${loc}/site-status`],
  ['GET', `/api/back-office/delivery-b/${loc}`],
  ['GET', `/api/back-office/delivery-b/${loc}/store-list`],
  ['GET', `/api/back-office/delivery-b/${loc}/configuration`],
  ['GET', `/api/back-office/delivery-b/${loc}/store`],
  ['GET', `/api/back-office/delivery-b/${loc}/store/status`],
  ['GET', `/api/back-office/delivery-b/${loc}/menu`],
  ['GET', `/api/back-office/delivery-b/${loc}/logs`],
  ['POST', `/api/back-office/delivery-b/${loc}/sync-menu`],
  ['GET', `/api/back-office/register-d/vendor-a/${loc}`],
  ['GET', `/api/back-office/register-d/vendor-a/${loc}/test`],
  ['POST', `/api/back-office/register-d/vendor-a/${loc}/sync-menu`],
  ['GET', `/api/back-office/register-a/${loc}`],
  ['GET', `/api/back-office/register-a/${loc}/stores`],
  ['POST', `/api/back-office/register-a/${loc}/sync`],
  ['POST', `/api/back-office/register-a/${loc}/test`],
  ['POST', `/api/back-office/register-a/${loc}/orders/verify`],
  ['GET', `/api/back-office/register-c/menus?location_id=${loc}`],
  ['GET', `/api/back-office/register-c/checks?location_id=${loc}`],
  ['GET', `/api/back-office/register-c/financial/daily?location_id=${loc}&date=2026-11-01`],
  ['GET', `/api/back-office/register-c/menu-suggestion/${loc}/diff`],
];

describe('integration routes without a permission, outside the caller\'s location grant', () => {
  test('403 at a location outside the grant (before: answered, menus pushed); inside it, not refused for the grant', async () => {
    for (const [method, path] of routes(m.locations[0]!.id)) {
      const r = await api.call(method, path, { token: member });
      expect([method, path, r.status, r.body?.message]).toEqual([method, path, ...DENIED]);
    }
    for (const [method, path] of routes(m.locations[1]!.id)) {
      const r = await api.call(method, path, { token: member });
      expect([method, path, r.status === 403]).toEqual([method, path, false]);
    }
  });

  test('a location of no merchant of theirs is 404, not 403: nothing tells a member it exists', async () => {
    for (const [method, path] of routes(crypto.randomUUID())) {
      const r = await api.call(method, path, { token: member });
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
  });
});
