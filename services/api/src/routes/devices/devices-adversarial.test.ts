import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken, loginToken } from './test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;

const octet = () => Math.floor(Math.random() * 250) + 1;
const randomIp = () => `10.${octet()}.${octet()}.${octet()}`;
const activate = (code: string) => api.call('POST', '/api/device-auth/activate', { body: { activation_code: code }, ip: randomIp() });
const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);

async function newDevice(type: 'pos' | 'kiosk' | 'kds', loc = a.locations[0]!.id): Promise<{ id: string; code: string }> {
  const r = await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: `Probe ${type}`, type, location_id: loc } });
  if (r.status !== 201) throw new Error(r.text);
  if (type !== 'pos') await tdb().updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 86_400_000) }).where('id', '=', r.body.data.id).execute();
  return { id: r.body.data.id, code: r.body.data.activation_code };
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('dev-adv-a');
  b = await api.seed('dev-adv-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  ownerB = await loginToken(api, b.backoffice.email, b.backoffice.password);
});
afterAll(() => api.close());

describe('devices, adversarial: races', () => {
  test('activation racing the delete of the device: never a 500, and a deleted device holds no working token', async () => {
    for (let i = 0; i < 6; i++) {
      const d = await newDevice('pos');
      const [act, del] = await Promise.all([activate(d.code), api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })]);
      expect([200, 422]).toContain(act.status);
      expect(del.status).toBe(200);
      if (act.status === 200) {
        expect((await api.call('GET', '/api/device-auth/user', { token: act.body.token, deviceKey: true })).status).toBe(401);
      }
    }
  });

  test('new-activation-code racing the delete: a deleted device is left with no activation code', async () => {
    let leaked = 0;
    for (let i = 0; i < 8; i++) {
      const d = await newDevice('pos');
      const [regen, del] = await Promise.all([
        api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner }),
        api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner }),
      ]);
      expect([200, 404]).toContain(regen.status);
      expect(del.status).toBe(200);
      const reg = await api.deps.db.selectFrom('device_registry').select(['activation_code']).where('id', '=', d.id).executeTakeFirstOrThrow();
      if (reg.activation_code !== null) leaked++;
    }
    expect(leaked).toBe(0);
  });

  test('rename racing the delete: the rename of a device being deleted is a 404, never a 200 about a deleted device', async () => {
    let stale = 0;
    for (let i = 0; i < 8; i++) {
      const d = await newDevice('pos');
      const [put, del] = await Promise.all([
        api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { name: `Renamed ${i}` } }),
        api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner }),
      ]);
      expect(del.status).toBe(200);
      expect([200, 404]).toContain(put.status);
      const row = await tdb().selectFrom('devices').select(['name', 'deleted_at']).where('id', '=', d.id).executeTakeFirstOrThrow();
      // A 200 rename must have happened before the delete: it cannot report a device that the delete had already removed.
      if (put.status === 200 && row.name !== `Renamed ${i}`) stale++;
    }
    expect(stale).toBe(0);
  });
});

describe('devices, adversarial: revoked and deleted devices', () => {
  test('after logout every device route refuses the token (heartbeat, network-info, user)', async () => {
    const d = await newDevice('kiosk');
    const token = (await activate(d.code)).body.token as string;
    expect((await api.call('POST', '/api/device-auth/logout', { token, deviceKey: true })).status).toBe(200);
    for (const [m, p] of [['POST', '/api/device-auth/heartbeat'], ['POST', '/api/device-auth/network-info'], ['GET', '/api/device-auth/user'], ['GET', '/api/kiosk/offers']] as const) {
      expect(`${p} ${(await api.call(m, p, { token, deviceKey: true, body: m === 'POST' ? {} : undefined })).status}`).toBe(`${p} 401`);
    }
  });

  test('a deleted device: new-activation-code, send-activation-code, remote-control, profile are the model 404', async () => {
    const d = await newDevice('kiosk');
    expect((await api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })).status).toBe(200);
    for (const [p, body] of [
      ['new-activation-code', undefined],
      ['send-activation-code', { email: 'x@example.com' }],
      ['remote-control', { command: 'reload' }],
      ['profile', { device_profile_id: null }],
      ['activate-payment', undefined],
    ] as const) {
      const r = await api.call('POST', `/api/back-office/devices/${d.id}/${p}`, { token: owner, body });
      expect(`${p} ${r.status}`).toBe(`${p} 404`);
    }
    expect((await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { name: 'x' } })).status).toBe(404);
  });

  test('a moved kiosk reports its new location', async () => {
    const d = await newDevice('kiosk');
    const token = (await activate(d.code)).body.token as string;
    const put = await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { location_id: a.locations[1]!.id } });
    expect(put.status).toBe(200);
    const r = await api.call('GET', '/api/device-auth/user', { token, deviceKey: true });
    expect(r.status).toBe(200);
    expect(r.body.data.location_id ?? r.body.data.location?.id).toBe(a.locations[1]!.id);
  });
});

describe('devices, adversarial: tenant isolation', () => {
  test('another merchant\'s location or profile in a PUT body is a 404, nothing written', async () => {
    const d = await newDevice('kiosk');
    const r1 = await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { location_id: b.locations[0]!.id } });
    expect(r1.status).toBe(404);
    const prof = await api.call('POST', '/api/back-office/device-profiles', { token: ownerB, body: { name: 'B kiosk', type: 'kiosk', settings: {} } });
    expect(prof.status).toBe(201);
    const r2 = await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { device_profile_id: prof.body.data.id } });
    expect(r2.status).toBe(404);
    const r3 = await api.call('POST', `/api/back-office/devices/${d.id}/profile`, { token: owner, body: { device_profile_id: prof.body.data.id } });
    expect(r3.status).toBe(404);
    const row = await tdb().selectFrom('devices').select(['location_id', 'device_profile_id']).where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ location_id: a.locations[0]!.id, device_profile_id: null });
  });

  test('merchant A\'s device token cannot read B\'s devices or admin-switch onto them', async () => {
    const token = await api.deviceToken(a, 'kiosk');
    expect((await api.call('GET', `/api/back-office/devices/${b.devices[0]!.id}`, { token, deviceKey: true })).status).toBe(403);
  });

  test('listing filtered by another merchant\'s location lists nothing of B', async () => {
    const r = await api.call('GET', `/api/back-office/devices?location_id=${b.locations[0]!.id}`, { token: owner });
    expect([200, 404]).toContain(r.status);
    if (r.status === 200) expect(r.body.data).toEqual([]);
  });
});

describe('devices, adversarial: bad input', () => {
  test('list query: bad type, page, per_page are 422, never 500', async () => {
    for (const q of ['type=bogus', 'page=0', 'page=-1', 'per_page=0', 'per_page=1000', 'page=abc', 'location_id=nope', 'search=' + 'x'.repeat(5000)]) {
      const r = await api.call('GET', `/api/back-office/devices?${q}`, { token: owner });
      expect(`${q.slice(0, 20)} ${r.status < 500}`).toBe(`${q.slice(0, 20)} true`);
    }
  });

  test('network-info: unknown keys, arrays and wrong types are 422 and nothing stored', async () => {
    const d = await newDevice('kiosk');
    const token = (await activate(d.code)).body.token as string;
    for (const body of [{ foo: 1 }, { ip_address: ['a'] }, { ssid: 'x'.repeat(65) }, { ip_address: { a: 1 } }]) {
      const r = await api.call('POST', '/api/device-auth/network-info', { token, deviceKey: true, body });
      expect(r.status).toBe(422);
    }
    const row = await tdb().selectFrom('devices').select('network_info').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.network_info).toEqual({});
  });

  test('PUT name of whitespace only is 422; a null name is 422', async () => {
    const d = await newDevice('kiosk');
    expect((await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { name: '   ' } })).status).toBe(422);
    expect((await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { name: null } })).status).toBe(422);
    expect((await api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { type: 'pos' } })).status).toBeLessThan(500);
  });

  test('activation code: non-string / huge / array inputs are 422, never 500', async () => {
    for (const code of [123, ['A'], { a: 1 }, 'x'.repeat(5000), '\u0000AAAA', null]) {
      const r = await api.call('POST', '/api/device-auth/activate', { body: { activation_code: code }, ip: randomIp() });
      expect(`${JSON.stringify(code).slice(0, 12)} ${r.status}`).toBe(`${JSON.stringify(code).slice(0, 12)} 422`);
    }
  });
});

describe('devices, adversarial: real-time channel', () => {
  test('a logged-out or deleted device token is refused on /api/realtime (4401)', async () => {
    const d1 = await newDevice('kds');
    const t1 = (await activate(d1.code)).body.token as string;
    await api.call('POST', '/api/device-auth/logout', { token: t1, deviceKey: true });
    const d2 = await newDevice('kiosk');
    const t2 = (await activate(d2.code)).body.token as string;
    await api.call('DELETE', `/api/back-office/devices/${d2.id}`, { token: owner });
    api.app.listen({ port: 0, hostname: '127.0.0.1' });
    try {
      for (const token of [t1, t2]) {
        const ws = new WebSocket(`ws://127.0.0.1:${api.app.server!.port}/api/realtime`, {
          headers: { authorization: `Bearer ${token}`, 'x-client-api-key': api.env.DEVICE_API_KEY },
        } as unknown as string[]);
        const code = await new Promise<number>((resolve) => (ws.onclose = (e) => resolve(e.code)));
        expect(code).toBe(4401);
      }
    } finally {
      await api.app.stop(true);
    }
  });

  test('race, 30 rounds: new-activation-code vs delete leaves no code on a deleted device', async () => {
    let leaked = 0;
    for (let i = 0; i < 30; i++) {
      const d = await newDevice('pos');
      await Promise.all([
        api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner }),
        new Promise((r) => setTimeout(r, i % 5)).then(() => api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner })),
      ]);
      const reg = await api.deps.db.selectFrom('device_registry').select(['activation_code']).where('id', '=', d.id).executeTakeFirstOrThrow();
      if (reg.activation_code !== null) leaked++;
    }
    expect(leaked).toBe(0);
  });
});

/** Holds a row lock in its own transaction until `release()`; `ready` resolves once it is held. */
function holdLock(lock: (tx: any) => Promise<unknown>) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let ready!: () => void;
  const held = new Promise<void>((r) => (ready = r));
  const done = api.deps.db.transaction().execute(async (tx) => {
    await lock(tx);
    ready();
    await gate;
  });
  return { held, release, done };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('devices, adversarial: writes to a device deleted meanwhile (check outside the transaction)', () => {
  test('new-activation-code that waited on a delete: 404, and the deleted device keeps no activation code', async () => {
    const d = await newDevice('pos');
    const lock = holdLock((tx) => tx.selectFrom('device_registry').select('id').where('id', '=', d.id).forUpdate().execute());
    await lock.held;
    const del = api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner });
    await sleep(300);
    const regen = api.call('POST', `/api/back-office/devices/${d.id}/new-activation-code`, { token: owner });
    await sleep(300);
    lock.release();
    await lock.done;
    const [delR, regenR] = await Promise.all([del, regen]);
    expect(delR.status).toBe(200);
    const reg = await api.deps.db.selectFrom('device_registry').select(['activation_code']).where('id', '=', d.id).executeTakeFirstOrThrow();
    expect({ regen: regenR.status, code: reg.activation_code }).toEqual({ regen: 404, code: null });
  });

  test('a move that waited on a delete: 404, and the deleted device is not moved', async () => {
    const d = await newDevice('pos');
    const lock = holdLock((tx) => bindTenant(tx, a.merchant.tenant_database).selectFrom('devices').select('id').where('id', '=', d.id).forUpdate().execute());
    await lock.held;
    const del = api.call('DELETE', `/api/back-office/devices/${d.id}`, { token: owner });
    await sleep(300);
    const put = api.call('PUT', `/api/back-office/devices/${d.id}`, { token: owner, body: { location_id: a.locations[1]!.id, name: 'Moved after delete' } });
    await sleep(300);
    lock.release();
    await lock.done;
    const [delR, putR] = await Promise.all([del, put]);
    expect(delR.status).toBe(200);
    const row = await tdb().selectFrom('devices').select(['location_id', 'name']).where('id', '=', d.id).executeTakeFirstOrThrow();
    expect({ put: putR.status, location_id: row.location_id, name: row.name }).toEqual({ put: 404, location_id: a.locations[0]!.id, name: 'Probe pos' });
  });
});

describe('devices, adversarial: KDS profile bounds through the generic device-profile routes', () => {
  test('PUT /device-profiles/{id} on a kds profile cannot store settings outside the KDS bounds (422, the screen keeps sane settings)', async () => {
    const created = await api.call('POST', '/api/back-office/kds-profiles', { token: owner, body: { name: 'Probe KDS profile' } });
    expect(created.status).toBe(201);
    const profileId = created.body.data.id as string;
    const d = await newDevice('kds');
    expect((await api.call('POST', `/api/back-office/devices/${d.id}/profile`, { token: owner, body: { device_profile_id: profileId } })).status).toBe(200);
    const token = (await activate(d.code)).body.token as string;
    const put = await api.call('PUT', `/api/back-office/device-profiles/${profileId}`, {
      token: owner,
      body: { settings: { recall_window_minutes: -5, late_after_minutes: 100000, sort: 'bogus', play_sound: true, show_modifiers: true } },
    });
    const s = await api.call('GET', '/api/kds/settings', { token, deviceKey: true });
    expect(s.status).toBe(200);
    expect({ put: put.status, settings: s.body.settings ?? s.body.data?.settings }).toEqual({
      put: 422,
      settings: { recall_window_minutes: 30, late_after_minutes: 15, sort: 'priority_first', show_modifiers: true, play_sound: true },
    });
  });

  test('POST /device-profiles of type kds with out-of-bounds or unknown settings is 422 (as /kds-profiles)', async () => {
    const r = await api.call('POST', '/api/back-office/device-profiles', { token: owner, body: { name: 'Bad kds', type: 'kds', settings: { recall_window_minutes: 0, sort: 'sideways', bogus: 1 } } });
    expect(r.status).toBe(422);
  });
});

describe('devices, adversarial: KDS profile writes and the location grant', () => {
  test('a member granted loc1 only cannot rewrite (PUT /kds-profiles/{id}) the profile driving a loc0 kitchen display (403, nothing written)', async () => {
    const created = await api.call('POST', '/api/back-office/kds-profiles', { token: owner, body: { name: 'Probe loc0 KDS', settings: { recall_window_minutes: 30 } } });
    expect(created.status).toBe(201);
    const profileId = created.body.data.id as string;
    const d = await newDevice('kds', a.locations[0]!.id);
    expect((await api.call('POST', `/api/back-office/devices/${d.id}/profile`, { token: owner, body: { device_profile_id: profileId } })).status).toBe(200);
    const member = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE'], [a.locations[1]!.id]);
    // The generic route refuses, as the decision says.
    expect((await api.call('PUT', `/api/back-office/device-profiles/${profileId}`, { token: member, body: { name: 'Hijacked' } })).status).toBe(403);
    const r = await api.call('PUT', `/api/back-office/kds-profiles/${profileId}`, { token: member, body: { name: 'Hijacked', settings: { recall_window_minutes: 1, play_sound: false } } });
    const row = await tdb().selectFrom('device_profiles').select(['name', 'settings']).where('id', '=', profileId).executeTakeFirstOrThrow();
    expect({ status: r.status, name: row.name, recall: (row.settings as Record<string, unknown>).recall_window_minutes }).toEqual({ status: 403, name: 'Probe loc0 KDS', recall: 30 });
  });
});

describe('devices, adversarial: printer profile writes and the location grant', () => {
  test('a member granted loc1 only cannot rewrite (PUT /printer-profiles/{id}) the profile driving a loc0 printer (403, nothing written)', async () => {
    const pos = await api.deviceToken(a, 'pos');
    const mc = '00:11:62:08:08:01';
    const disc = await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac: mc, model: 'TM-m30III', paper_width_mm: 80 }] } });
    expect(disc.status).toBe(200);
    const printerId = (await tdb().selectFrom('printers').select(['id', 'location_id']).where('mac', '=', mc).executeTakeFirstOrThrow()).id;
    const profile = await api.call('POST', '/api/back-office/printer-profiles', { token: owner, body: { name: 'Probe loc0 printers', settings: { paper_width_mm: 80, poll_interval_seconds: 5 } } });
    expect(profile.status).toBe(201);
    const conf = await api.call('POST', `/api/back-office/devices/${printerId}/printer/configure`, { token: owner, body: { name: 'Loc0 receipt', printer_profile_id: profile.body.data.id } });
    expect(conf.status).toBe(200);
    expect(conf.body.data.location_id).toBe(a.locations[0]!.id);
    const member = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE'], [a.locations[1]!.id]);
    const r = await api.call('PUT', `/api/back-office/printer-profiles/${profile.body.data.id}`, { token: member, body: { name: 'Hijacked', settings: { paper_width_mm: 58, poll_interval_seconds: 60 } } });
    const row = await tdb().selectFrom('printer_profiles').select(['name']).where('id', '=', profile.body.data.id).executeTakeFirstOrThrow();
    expect({ status: r.status, name: row.name }).toEqual({ status: 403, name: 'Probe loc0 printers' });
    // Nor delete it (which would unbind the loc0 printer); a member holding loc0 may.
    const d = await api.call('DELETE', `/api/back-office/printer-profiles/${profile.body.data.id}`, { token: member });
    const still = await tdb().selectFrom('printers').select('printer_profile_id').where('id', '=', printerId).executeTakeFirstOrThrow();
    expect({ status: d.status, body: d.body, bound: still.printer_profile_id }).toEqual({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' }, bound: profile.body.data.id });
    const granted = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE'], [a.locations[0]!.id]);
    const ok = await api.call('DELETE', `/api/back-office/printer-profiles/${profile.body.data.id}`, { token: granted });
    expect({ status: ok.status, body: ok.body }).toEqual({ status: 200, body: { status: 'success', unbound_printers: 1 } });
  });
});

describe('devices, adversarial: KDS device own settings and push token', () => {
  test('PUT /kds/settings out of bounds, unknown keys, wrong types are 422; push-token too long 422; nothing stored', async () => {
    const d = await newDevice('kds');
    const token = (await activate(d.code)).body.token as string;
    for (const body of [{ recall_window_minutes: -5 }, { recall_window_minutes: 1441 }, { late_after_minutes: 0 }, { sort: 'sideways' }, { bogus: 1 }, { play_sound: 'yes' }, { recall_window_minutes: 2.5 }]) {
      const r = await api.call('PUT', '/api/kds/settings', { token, deviceKey: true, body });
      expect(`${JSON.stringify(body)} ${r.status}`).toBe(`${JSON.stringify(body)} 422`);
    }
    const row = await tdb().selectFrom('devices').select('kds_settings').where('id', '=', d.id).executeTakeFirstOrThrow();
    expect(row.kds_settings ?? {}).toEqual({});
    const p = await api.call('POST', '/api/kds/push-token', { token, deviceKey: true, body: { push_token: 'x'.repeat(20000) } });
    expect(p.status).toBeGreaterThanOrEqual(400);
    expect(p.status).toBeLessThan(500);
  });
});

describe('devices, adversarial: send-activation-code by SMS', () => {
  test('a national number is sent in E.164, read in the device location\'s country', async () => {
    const d = await newDevice('kiosk');
    const country = (await tdb().selectFrom('locations').select('country').where('id', '=', a.locations[0]!.id).executeTakeFirstOrThrow()).country;
    expect(country).toBe('BE');
    const local = `0470 ${Math.floor(100000 + Math.random() * 899999)}`;
    const r = await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: owner, body: { phone: local } });
    expect(r).toMatchObject({ status: 200, body: { status: 'success' } });
    const e164 = `+32${local.slice(1).replace(/ /g, '')}`;
    const rows = await api.deps.db.selectFrom('outbox').select('payload').where(sql<string>`payload->>'to'`, 'in', [e164, local]).execute();
    expect(rows.map((x) => x.payload)).toEqual([{ channel: 'sms', to: e164, template: 'device-activation-code', data: { code: d.code, device_name: 'Probe kiosk' } }]);
  });

  test('a number that is no phone number of any country is 422 on phone, nothing queued, nothing logged', async () => {
    const d = await newDevice('kiosk');
    const bad = `0000 ${Math.floor(100 + Math.random() * 899)}`;
    const r = await api.call('POST', `/api/back-office/devices/${d.id}/send-activation-code`, { token: owner, body: { phone: bad } });
    expect(r).toMatchObject({ status: 422, body: { errors: { phone: ['The phone field must be a valid phone number.'] } } });
    expect(await api.deps.db.selectFrom('outbox').select('id').where(sql<string>`payload->>'to'`, '=', bad).execute()).toHaveLength(0);
    expect(await tdb().selectFrom('activity_logs').select('id').where('subject_id', '=', d.id).where('action', '=', 'sent_activation_code').execute()).toHaveLength(0);
  });
});

describe('devices, adversarial: send-activation-code is no SMS or mail relay', () => {
  test('5 codes per recipient per 15 minutes and 30 per merchant an hour; then 429 and nothing queued', async () => {
    // The merchant's counter from this window's earlier tests (they sent codes too) starts over.
    await api.deps.redis.del(`throttle:activation-code-merchant:3600:${a.merchant.id}`);
    const d = await newDevice('kiosk');
    const path = `/api/back-office/devices/${d.id}/send-activation-code`;
    const phone = `+32 470 ${Math.floor(100000 + Math.random() * 899999)}`;
    const e164 = phone.replace(/ /g, '');
    for (let i = 0; i < 5; i++) expect((await api.call('POST', path, { token: owner, body: { phone } })).status).toBe(200);
    // The same number typed another way is the same recipient.
    expect(await api.call('POST', path, { token: owner, body: { phone: e164 } })).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    expect(await api.deps.db.selectFrom('outbox').select('id').where(sql<string>`payload->>'to'`, '=', e164).execute()).toHaveLength(5);
    // Other addresses: the merchant's 30 an hour (5 already sent).
    let refused = 0;
    for (let i = 0; i < 26; i++) {
      const r = await api.call('POST', path, { token: owner, body: { email: `relay-${i}-${crypto.randomUUID().slice(0, 6)}@example.com` } });
      if (r.status === 429) refused++;
      else expect(r.status).toBe(200);
    }
    expect(refused).toBe(1);
    // Another merchant is not held back by this one.
    const dB = (await api.call('POST', '/api/back-office/devices', { token: ownerB, body: { name: 'B kiosk', type: 'kiosk', location_id: b.locations[0]!.id } })).body.data;
    expect((await api.call('POST', `/api/back-office/devices/${dB.id}/send-activation-code`, { token: ownerB, body: { email: 'b-ops@example.com' } })).status).toBe(200);
  });
});

describe('who is answered a device\'s activation code', () => {
  test('only a caller holding VIEW_DEVICES or CREATE_DEVICES at its location: an edit or a payment switch by anyone else answers null', async () => {
    const loc = a.locations[0]!.id;
    const kiosk = await newDevice('kiosk', loc);
    const viewer = await limitedUserToken(api, a, ['VIEW_ITEMS'], [loc]);
    const editor = await limitedUserToken(api, a, ['EDIT_DEVICES'], [loc]);
    const call = (token: string, method: string, path: string, body?: unknown) => api.call(method, `/api/back-office/devices/${kiosk.id}${path}`, { token, body });
    expect((await call(viewer, 'POST', '/new-activation-code')).status).toBe(403);
    expect((await call(viewer, 'GET', '')).status).toBe(403);
    // Before: 200 with the unused code, which activates a device and signs out the one running.
    const off = await call(viewer, 'POST', '/deactivate-payment');
    expect(off.status).toBe(200);
    expect(off.body.data.activation_code).toBeNull();
    await tdb().updateTable('devices').set({ card_b_terminal_id: `CB-${kiosk.id.slice(-8)}` }).where('id', '=', kiosk.id).execute();
    expect((await call(viewer, 'POST', '/activate-payment')).body.data.activation_code).toBeNull();
    const renamed = await call(editor, 'PUT', '', { name: 'Probe kiosk' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.activation_code).toBeNull();
    expect((await call(editor, 'POST', '/profile', { device_profile_id: null })).body.data.activation_code).toBeNull();
    // Whoever may hold it still gets it.
    expect((await call(owner, 'GET', '')).body.data.activation_code).toBe(kiosk.code);
    expect((await call(owner, 'PUT', '', { name: 'Probe kiosk' })).body.data.activation_code).toBe(kiosk.code);
    const lister = await limitedUserToken(api, a, ['VIEW_DEVICES'], [loc]);
    const listed = await api.call('GET', `/api/back-office/devices?per_page=100`, { token: lister });
    expect(listed.body.data.find((d: { id: string }) => d.id === kiosk.id)?.activation_code).toBe(kiosk.code);
  });
});

describe('device writes racing deletes of what they reference', () => {
  const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
  const newLocation = async (round: number) => (await bo('POST', '/settings/locations', { name: `Race ${round} ${crypto.randomUUID().slice(0, 6)}`, timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;

  test('a device created or moved at a location deleted at once: 201/200 and the delete refused 409, or the delete wins and the write is 404; never a 500', async () => {
    const moved = await newDevice('kiosk');
    for (let round = 0; round < 8; round++) {
      const loc = await newLocation(round);
      const [created, deleted] = await Promise.all([bo('POST', '/devices', { name: 'Race kiosk', type: 'kiosk', location_id: loc }), bo('DELETE', `/settings/locations/${loc}`)]);
      expect([[201, 409], [404, 204], [404, 200]]).toContainEqual([created.status, deleted.status]);
      const other = await newLocation(round + 100);
      const [update, gone] = await Promise.all([bo('PUT', `/devices/${moved.id}`, { location_id: other }), bo('DELETE', `/settings/locations/${other}`)]);
      expect([[200, 409], [404, 204], [404, 200]]).toContainEqual([update.status, gone.status]);
      if (update.status === 200) expect((await bo('PUT', `/devices/${moved.id}`, { location_id: a.locations[0]!.id })).status).toBe(200);
      if (created.status === 201) expect((await bo('DELETE', `/devices/${created.body.data.id}`)).status).toBeLessThan(300);
    }
  });

  test('a device created with a profile deleted or retyped at once: never a 500, never a kiosk bound to a profile of another type', async () => {
    for (let round = 0; round < 8; round++) {
      const prof = (await bo('POST', '/device-profiles', { name: `Race ${round}`, type: 'kiosk', settings: {} })).body.data.id as string;
      const [created, retyped] = await Promise.all([bo('POST', '/devices', { name: 'Race kiosk', type: 'kiosk', location_id: a.locations[0]!.id, device_profile_id: prof }), bo('PUT', `/device-profiles/${prof}`, { type: 'pos' })]);
      expect([[201, 422], [422, 200]]).toContainEqual([created.status, retyped.status]);
      if (created.status === 201) expect((await bo('DELETE', `/devices/${created.body.data.id}`)).status).toBeLessThan(300);
      const gone = (await bo('POST', '/device-profiles', { name: `Race gone ${round}`, type: 'kiosk', settings: {} })).body.data.id as string;
      const [c2, d2] = await Promise.all([bo('POST', '/devices', { name: 'Race kiosk', type: 'kiosk', location_id: a.locations[0]!.id, device_profile_id: gone }), bo('DELETE', `/device-profiles/${gone}`)]);
      expect(c2.status === 201 || c2.status === 404).toBe(true);
      expect(d2.status).toBeLessThan(500);
      if (c2.status === 201) expect((await bo('DELETE', `/devices/${c2.body.data.id}`)).status).toBeLessThan(300);
    }
    const mismatched = await tdb()
      .selectFrom('devices')
      .innerJoin('device_profiles', 'device_profiles.id', 'devices.device_profile_id')
      .select('devices.id')
      .whereRef('device_profiles.type', '<>', 'devices.type')
      .where('devices.deleted_at', 'is', null)
      .execute();
    expect(mismatched).toEqual([]);
  });
});
