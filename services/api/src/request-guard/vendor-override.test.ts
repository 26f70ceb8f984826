import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { makeMember } from '../routes/team/team.test-support.ts';

/**
 * `admin-vendor-override` (spec 1 middleware): every route of a group mounted with it must take
 * `vendor_id` in its query. With `normalize: false` a query key its schema does not declare is a 422,
 * so a route whose schema forgot it refused the merchant's reseller (who has no other way in) and
 * internal admins. Each route is found by its behaviour, so a new one joins by being registered: an
 * unknown `vendor_id` is refused by the override (403) before any validation; the merchant's own id
 * must then never be the 422 of an undeclared `vendor_id`.
 */
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let admin: string;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('vendor-a');
  b = await api.seed('vendor-b');
  const member = await makeMember(api, b, [], { allLocations: true });
  await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', member.userId).execute();
  admin = member.token;
}, 60_000);
afterAll(() => api.close());

const UNKNOWN_MERCHANT = '00000000-0000-4000-8000-000000000000';

describe('admin-vendor-override routes take vendor_id', () => {
  test('every route that honours vendor_id declares it in its query, and no other route declares it', async () => {
    // Signing out would end the caller's own session half-way through.
    const routes = ((api.app as any).routes as { method: string; path: string; hooks?: { query?: { properties?: Record<string, unknown> } } }[]).filter((r) => r.path.startsWith('/api/') && ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.path.includes('logout'));
    const withIds = (path: string) => path.replace(/:[A-Za-z_]+/g, () => crypto.randomUUID());
    const call = (method: string, path: string, vendor: string) =>
      api.call(method, `${path}${path.includes('?') ? '&' : '?'}vendor_id=${vendor}`, { token: admin, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
    let overridden = 0;
    const refused: string[] = [];
    const ignored: string[] = [];
    for (const r of routes) {
      const path = withIds(r.path);
      const probe = await call(r.method, path, UNKNOWN_MERCHANT);
      if (probe.status !== 403) {
        // Declared but not honoured: an admin would read their own merchant believing it another's.
        if (r.hooks?.query?.properties?.vendor_id !== undefined) ignored.push(`${r.method} ${r.path}`);
        continue;
      }
      overridden++;
      const own = await call(r.method, path, a.merchant.id);
      if (own.status === 422 && own.body?.errors?.vendor_id) refused.push(`${r.method} ${r.path}`);
    }
    expect(overridden).toBeGreaterThan(100);
    expect(refused).toEqual([]);
    expect(ignored).toEqual([]);
  }, 300_000);
});
