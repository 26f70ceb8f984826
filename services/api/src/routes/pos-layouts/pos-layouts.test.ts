import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * `GET /pos/layouts`: the register receives the screen layouts the back office designed for its
 * location (`/back-office/pos/{locationId}/layouts`), the default first, with the device token alone.
 */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
let device: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-layouts-device');
  other = await api.seed('pos-layouts-device-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  device = await api.deviceToken(m, 'pos', 0);
});
afterAll(() => api.close());

const registerLocation = () => m.devices.filter((d) => d.type === 'pos')[0]!.location_id;
const layout = (name: string, itemId: string, isDefault?: boolean) => ({
  name,
  ...(isDefault === undefined ? {} : { is_default: isDefault }),
  columns: 3,
  rows: 2,
  pages: [{ name: 'Main', tiles: [{ row: 0, column: 0, width: 2, item_id: itemId, label: name, color: '#112233' }] }],
});
const create = async (token: string, locationId: string, body: unknown) => {
  const r = await api.call('POST', `/api/back-office/pos/${locationId}/layouts`, { token, body });
  expect(r.status, r.text).toBe(201);
  return r.body.data as { id: string };
};
const registerLayouts = () => api.call('GET', '/api/pos/layouts', { token: device, deviceKey: true });

describe('GET /pos/layouts', () => {
  test('the layouts of the register\'s location only, the default first, as the back office shows them', async () => {
    const here = registerLocation();
    const elsewhere = m.locations.find((l) => l.id !== here)!;
    expect(await registerLayouts()).toMatchObject({ status: 200, body: { data: [] } });

    const counter = await create(owner, here, layout('Counter', m.items[0]!.id));
    const bar = await create(owner, here, layout('Bar', m.items[1]!.id, true));
    await create(owner, elsewhere.id, layout('Terrace', m.items[0]!.id));
    await create(otherOwner, other.locations[0]!.id, layout('Foreign', other.items[0]!.id));

    const r = await registerLayouts();
    expect(r.status, r.text).toBe(200);
    const backOffice = await api.call('GET', `/api/back-office/pos/${here}/layouts`, { token: owner });
    expect(r.body).toEqual(backOffice.body);
    expect((r.body.data as { id: string; name: string; is_default: boolean }[]).map((l) => [l.id, l.name, l.is_default])).toEqual([
      [bar.id, 'Bar', true],
      [counter.id, 'Counter', false],
    ]);
    expect(r.body.data[0].pages).toEqual([{ name: 'Main', tiles: [{ row: 0, column: 0, width: 2, height: 1, item_id: m.items[1]!.id, category_id: null, label: 'Bar', color: '#112233' }] }]);

    // A layout deleted in the back office is gone for the register too.
    const deleted = await api.call('DELETE', `/api/back-office/pos/${here}/layouts/${counter.id}`, { token: owner });
    expect(deleted.status).toBe(200);
    expect(((await registerLayouts()).body.data as { id: string }[]).map((l) => l.id)).toEqual([bar.id]);
  });

  test('needs the device key and a pos device token; no staff session', async () => {
    expect((await api.call('GET', '/api/pos/layouts', { token: device })).status).toBe(401);
    expect(await api.call('GET', '/api/pos/layouts', { deviceKey: true })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    const kiosk = await api.deviceToken(m, 'kiosk', 0);
    expect(await api.call('GET', '/api/pos/layouts', { token: kiosk, deviceKey: true })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect((await registerLayouts()).status).toBe(200);
  });
});
