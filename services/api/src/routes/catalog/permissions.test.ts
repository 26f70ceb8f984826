import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { CATALOG_ROUTES } from './catalog-routes.ts';

/** Prefixes (under /api/back-office) whose every route must be in the table above. */
const FAMILIES = ['/items', '/categories', '/modifiers', '/modifier-groups', '/variant-groups', '/display-groups', '/menu-options', '/menus', '/offers', '/tax-rate-options', '/tax-rates', '/contents', '/inventories'];

let api: TestApi;
let m: DemoSeedResult;
let none: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('catalog-perms');
  none = await limitedUserToken(api, m, [], m.locations.map((l) => l.id));
});
afterAll(() => api.close());

const pathOf = (p: string) => `/api/back-office${p.replace(/:(id|itemId)/g, crypto.randomUUID())}`;
const uuid = () => crypto.randomUUID();
/** A body that passes validation, so the permission (checked after it) decides. */
function bodyOf(method: string, path: string): unknown {
  if (method === 'GET') return undefined;
  const key = `${method} ${path}`;
  const bodies: Record<string, unknown> = {
    // For granted locations: an item for every location needs an all-locations grant (docs/decisions.md, Catalog).
    'POST /items': { name: 'P', unit_price: 100, vat_rate: 21, category_id: null, location_ids: [m.locations[0]!.id] },
    'POST /categories': { name: 'P' },
    'POST /modifier-groups': { name: 'P', min_select: 0, max_select: 1, modifiers: [] },
    'PUT /modifier-groups/reorder': { ids: [uuid()] },
    'POST /variant-groups': { item_id: uuid(), name: 'P', variants: [{ name: 'V', unit_price: 1 }] },
    'POST /display-groups': { menu_id: uuid(), name: 'P' },
    'POST /menus': { name: 'P', location_id: m.locations[0]!.id },
    'POST /menus/display-group-items/:id': { groups: [{ id: uuid(), item_ids: [] }] },
    'POST /menus/display-group-items/:id/draft': { groups: [{ id: uuid(), item_ids: [] }] },
    'POST /menus/move-item-to-other-group/:id': { from_display_group_id: uuid(), to_display_group_id: uuid() },
    'POST /menus/add-item-to-groups/:itemId': { display_group_ids: [uuid()] },
    'POST /offers': { name: 'P', rule: { kind: 'percentage', percent: 5 }, item_ids: [], location_ids: [m.locations[0]!.id] },
    'POST /tax-rates': { name: 'P', rate: 3 },
    'DELETE /contents': { ids: [uuid()] },
    'POST /inventories': { item_id: m.items[0]!.id, location_id: m.locations[0]!.id, type: 'restock', quantity: 1 },
    'DELETE /inventories': { ids: [uuid()] },
  };
  return bodies[key] ?? {};
}

describe('catalog permissions', () => {
  test('the table lists every registered catalog route', () => {
    const registered = ((api.app as any).routes as { method: string; path: string }[])
      .filter((r) => FAMILIES.some((f) => r.path === `/api/back-office${f}` || r.path.startsWith(`/api/back-office${f}/`)))
      .map((r) => `${r.method} ${r.path.replace('/api/back-office', '')}`)
      .sort();
    expect(registered).toEqual(CATALOG_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
  });

  /** The upload is multipart: a valid PNG, so only the permission decides. */
  const upload = async (token: string) => {
    const form = new FormData();
    form.append('file', new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])], 'p.png', { type: 'image/png' }));
    const res = await api.app.handle(new Request('http://localhost/api/back-office/contents', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
    return { status: res.status, body: (await res.json()) as any };
  };
  const send = (method: string, path: string, token: string) =>
    method === 'POST' && path === '/contents' ? upload(token) : api.call(method, pathOf(path), { token, body: bodyOf(method, path) });

  for (const [method, path, slug] of CATALOG_ROUTES) {
    test(`${method} ${path}: ${slug ?? 'no permission of its own'}`, async () => {
      expect(await api.call(method, pathOf(path), {})).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
      const without = await send(method, path, none);
      if (slug === null) {
        expect(without.status).not.toBe(403);
        return;
      }
      expect(without).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
      const holder = await limitedUserToken(api, m, [slug], m.locations.map((l) => l.id));
      const withIt = await send(method, path, holder);
      expect(withIt.status).not.toBe(403);
      expect(withIt.status).toBeLessThan(500);
    });
  }
});
