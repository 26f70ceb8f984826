import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { backOffice, newDevice } from '../support/back-office.ts';

/**
 * The register's screen layout: designed in the back office (`/back-office/pos/{locationId}/layouts`),
 * received by a register of that location (`GET /pos/layouts`) with its device token alone. A tile's
 * item deleted in the back office leaves the register's layout with it. The suite removes what it adds.
 */
test.describe('register screen layout', () => {
  test('back office designs a layout -> the register receives it, default first; a deleted item leaves its tile', async ({ request }) => {
    const seed = loadSeed();
    const location = seed.locations[0]!.id;
    const api = await backOffice(request);
    const device = await newDevice(request, api, { name: 'Layout till', type: 'pos', location_id: location });
    const pos = device.headers;
    const layouts = async () => {
      const res = await request.get('/api/pos/layouts', { headers: pos });
      expect(res.status()).toBe(200);
      return (await res.json()).data as { id: string; name: string; is_default: boolean; pages: { name: string; tiles: { item_id: string | null; category_id: string | null; label: string | null }[] }[] }[];
    };
    const before = await layouts();
    expect(before).toEqual([]);

    const drinksCategory = (await api('get', '/categories/options')).body.data.find((c: { label: string }) => c.label === 'Drinks').value;
    const flatWhite = (await api('post', '/items', { name: 'Layout flat white', unit_price: 360, vat_rate: 21, category_id: drinksCategory })).body.data;
    const espresso = seed.items[0]!.id;
    const created = await api('post', `/pos/${location}/layouts`, {
      name: `Front counter ${Date.now()}`,
      is_default: true,
      columns: 4,
      rows: 3,
      pages: [{ name: 'Coffee', tiles: [{ row: 0, column: 0, item_id: espresso, label: 'Espresso' }, { row: 0, column: 1, item_id: flatWhite.id }, { row: 1, column: 0, width: 2, category_id: drinksCategory, color: '#336699' }] }],
    });
    expect(created.status).toBe(201);
    const layout = created.body.data;

    const received = await layouts();
    expect(received[0]).toEqual(layout);
    expect(received.map((l) => l.id).sort()).toEqual([...before.map((l) => l.id), layout.id].sort());
    expect(received.filter((l) => l.is_default).map((l) => l.id)).toEqual([layout.id]);

    // The item goes from the catalog: its tile goes from the register's layout.
    expect((await api('delete', `/items/${flatWhite.id}`)).status).toBe(200);
    const after = (await layouts()).find((l) => l.id === layout.id)!;
    expect(after.pages[0]!.tiles.map((t) => t.item_id ?? t.category_id)).toEqual([espresso, drinksCategory]);

    // Put things back: the layout removed, the device deleted.
    expect((await api('delete', `/pos/${location}/layouts/${layout.id}`)).status).toBe(200);
    expect((await layouts()).map((l) => l.id)).toEqual(before.map((l) => l.id));
    expect((await api('delete', `/devices/${device.id}`)).status).toBe(200);
  });
});
