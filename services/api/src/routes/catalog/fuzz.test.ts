import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { CATALOG_ROUTES } from './catalog-routes.ts';

/** Hostile variants against every catalog route: nothing may answer 5xx. */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kiosk: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('catalog-fuzz');
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(() => api.close());

const HOSTILE: unknown[] = ['a\u0000b', 1e308, -1, -2147483649, 2147483648, 1.5, 'x'.repeat(70_000), { nested: { deep: [1] } }, [null], null, true, '', '00000000-0000-0000-0000-000000000000'];
/** The body fields a route declares (its schema), else a few common ones. */
function fieldsOf(method: string, path: string): string[] {
  const route = ((api.app as any).routes as { method: string; path: string; hooks: any }[]).find((r) => r.method === method && r.path === `/api/back-office${path}`);
  const props = route?.hooks?.body?.properties;
  return props ? Object.keys(props) : ['name'];
}

describe('catalog fuzz', () => {
  test('hostile bodies, queries and ids never answer 5xx', async () => {
    const failures: string[] = [];
    const ids = [m.items[0]!.id, 'a%00b'];
    for (const [method, path] of CATALOG_ROUTES) {
      for (const id of path.includes(':') ? ids : ['']) {
        const p = `/api/back-office${path.replace(/:(id|itemId)/, id)}`;
        const bodies: unknown[] = method === 'GET' ? [undefined] : [null, [], 'str', 42, {}, ...fieldsOf(method, path).flatMap((f) => HOSTILE.map((v) => ({ [f]: v })))];
        for (const body of bodies) {
          const r = await api.call(method, p, { token: owner, body });
          if (r.status >= 500) failures.push(`${method} ${p} ${JSON.stringify(body)?.slice(0, 80)}: ${r.status} ${r.text.slice(0, 120)}`);
        }
        if (method === 'GET' && id !== 'a%00b') {
          for (const q of ['?search=%00', '?page=0', '?page=1e9', '?per_page=-1', '?sort=%00', '?sort=-password', '?category_id=%00', '?location_id=x', '?menu_id=1', '?download=maybe', '?format=%00', '?is_custom=3', '?status=x', '?visible=yes', '?search=' + 'x'.repeat(5000)]) {
            const r = await api.call(method, p + q, { token: owner });
            if (r.status >= 500) failures.push(`${method} ${p}${q.slice(0, 40)}: ${r.status} ${r.text.slice(0, 120)}`);
          }
        }
      }
    }
    for (const body of [{ lines: [{ item_id: 'a\u0000b', qty: 1 }] }, { lines: [{ item_id: m.items[0]!.id, qty: 1e308 }] }, { lines: 'x' }, { lines: [] }, { lines: Array(101).fill({ item_id: m.items[0]!.id, qty: 1 }) }]) {
      const r = await api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body });
      if (r.status >= 500) failures.push(`quote ${JSON.stringify(body).slice(0, 80)}: ${r.status}`);
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
