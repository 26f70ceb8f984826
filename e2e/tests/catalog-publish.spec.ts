import { expect, test } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E } from '../support/stack-env.ts';
import { backOffice, newDevice } from '../support/back-office.ts';

/**
 * Issue 11: the back office edits a menu and publishes it; the register's bootstrap and the kiosk's
 * quote see the new item and price on their next read. The suite leaves the demo merchant's published
 * menu as it found it (the register suites read it).
 */
test.describe('catalog: edit, publish, and the channels see it', () => {
  test('back office edit and publish -> register bootstrap and kiosk quote', async ({ request }) => {
    const seed = loadSeed();
    const location = seed.locations[0]!.id;
    const api = await backOffice(request);

    // A register of our own (seeded codes belong to the register suites) and the seeded kiosk, re-activated.
    const pos = (await newDevice(request, api, { name: 'Catalog till', type: 'pos', location_id: location })).headers;
    const kioskId = seed.devices.find((d) => d.type === 'kiosk')!.id;
    const code = (await api('post', `/devices/${kioskId}/new-activation-code`)).body.data.activation_code;
    const kioskAct = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
    const kiosk = { authorization: `Bearer ${kioskAct.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };

    const bootstrap = async () => (await (await request.get('/api/pos/bootstrap', { headers: pos })).json()) as { display_groups: { name: string; items: { id: string; name: string; unit_price: number }[] }[] };
    const quote = async (lines: unknown[]) => {
      const res = await request.post('/api/kiosk/pricing/quote', { headers: kiosk, data: { lines } });
      return { status: res.status(), body: await res.json() };
    };
    const original = await bootstrap();
    expect(original.display_groups.flatMap((g) => g.items).length).toBe(seed.items.length);

    // Back office: a new item, put into a copy of the published menu through a draft, then published.
    const drinksCategory = (await api('get', '/categories/options')).body.data.find((c: { label: string }) => c.label === 'Drinks').value;
    const cortado = (await api('post', '/items', { name: 'Cortado', unit_price: 320, vat_rate: 21, category_id: drinksCategory })).body.data;
    expect((await quote([{ item_id: cortado.id, qty: 1 }])).status).toBe(422);

    const published = (await api('get', `/menus?location_id=${location}&status=published`)).body.data[0];
    const copy = (await api('post', `/menus/duplicate/${published.id}`)).body.data;
    const drinks = copy.display_groups.find((g: { name: string }) => g.name === 'Drinks');
    const drafted = await api('post', `/menus/display-group-items/${copy.id}/draft`, { groups: [{ id: drinks.id, item_ids: [cortado.id, ...drinks.item_ids] }] });
    expect(drafted.body.data.draft).not.toBeNull();
    const pub = await api('post', `/menus/publish/${copy.id}`);
    expect(pub.status).toBe(200);
    expect(pub.body.data.status).toBe('published');

    const after = await bootstrap();
    expect(after.display_groups.find((g) => g.name === 'Drinks')!.items[0]).toEqual({ id: cortado.id, name: 'Cortado', unit_price: 320, vat_rate: 21, modifiers: [] });
    const q = await quote([{ item_id: cortado.id, qty: 2 }]);
    expect(q.status).toBe(200);
    expect(q.body.data).toMatchObject({ subtotal: 640, discount: 0, total: 640, lines: [{ name: 'Cortado', unit_price: 320, total: 640 }] });

    // A new price is live on both channels at the next read.
    expect((await api('put', `/items/${cortado.id}`, { unit_price: 350 })).body.data.unit_price).toBe(350);
    expect((await bootstrap()).display_groups.find((g) => g.name === 'Drinks')!.items[0]!.unit_price).toBe(350);
    expect((await quote([{ item_id: cortado.id, qty: 2 }])).body.data.total).toBe(700);

    // Put the demo merchant back as it was.
    expect((await api('post', `/menus/publish/${published.id}`)).status).toBe(200);
    expect((await api('delete', `/menus/${copy.id}`)).status).toBe(200);
    expect((await api('delete', `/items/${cortado.id}`)).status).toBe(200);
    expect(await bootstrap()).toEqual(original);
  });
});
