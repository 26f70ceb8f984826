import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, signIn, type Register } from '../pos-tills/register-test-support.ts';

// Spec 2 `GET /pos/kds-stations`: the register's station picker, for the location of the device token.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let register: Register;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-kds-stations');
  other = await api.seed('pos-kds-stations-other');
  register = await signIn(api, m, 'cashier', 0);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

describe('GET /pos/kds-stations', () => {
  test('lists the stations of the device\'s location by name, not those of another location or merchant', async () => {
    const here = m.locations[0]!.id;
    const elsewhere = m.locations.find((l) => l.id !== here);
    const bar = await api.call('POST', '/api/back-office/devices/stations', { token: owner, body: { location_id: here, name: 'Bar', category_ids: [] } });
    expect(bar.status).toBe(201);
    if (elsewhere) expect((await api.call('POST', '/api/back-office/devices/stations', { token: owner, body: { location_id: elsewhere.id, name: 'Away', category_ids: [] } })).status).toBe(201);
    const r = await call(register, 'GET', '/pos/kds-stations');
    expect(r.status, r.text).toBe(200);
    const names = (r.body.data as { name: string; location_id: string }[]).map((s) => s.name);
    expect(names).toEqual([...names].sort());
    expect(names).toContain('Bar');
    expect(names).not.toContain('Away');
    expect((r.body.data as { location_id: string }[]).every((s) => s.location_id === here)).toBe(true);
    expect(JSON.stringify(r.body)).toContain(m.kds.station_id);
    expect(JSON.stringify(r.body)).not.toContain(other.kds.station_id);
    const station = (r.body.data as Record<string, unknown>[]).find((s) => s.id === bar.body.data.id)!;
    expect(station).toEqual(bar.body.data);
  });

  test('is a staff route: the device token alone is 401', async () => {
    const r = await api.call('GET', '/api/pos/kds-stations', { token: register.device, deviceKey: true });
    expect(r.status).toBe(401);
  });
});
