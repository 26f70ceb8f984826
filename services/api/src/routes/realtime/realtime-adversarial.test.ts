import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { publishKitchenEvents } from '@pos/core/kitchen/kitchen-events';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** Adversarial probes of the kitchen side of the real-time channel: other places, stale tokens. */
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let base: string;

beforeAll(async () => {
  // The periodic credentials check is far off: a revocation must not wait for it.
  api = await createTestApi({ env: { REALTIME_RECHECK_SECONDS: '600', AUTH_CACHE_TTL_MS: '60000' } });
  a = await api.seed('rt-adv-a');
  b = await api.seed('rt-adv-b');
  api.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `ws://127.0.0.1:${api.app.server!.port}/api/realtime`;
});
afterAll(async () => {
  await api.app.stop(true);
  await api.close();
});

function connect(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers } as unknown as string[]);
  const inbox: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  let closed: number | null = null;
  ws.onmessage = (e) => {
    const v = JSON.parse(String(e.data));
    const w = waiters.shift();
    if (w) w(v);
    else inbox.push(v);
  };
  ws.onclose = (e) => {
    closed = e.code;
    for (const w of waiters.splice(0)) w({ closed: e.code });
  };
  return {
    send: (v: unknown) => ws.send(JSON.stringify(v)),
    next: (ms = 3000): Promise<any> =>
      inbox.length
        ? Promise.resolve(inbox.shift())
        : closed !== null
          ? Promise.resolve({ closed })
          : new Promise((resolve, reject) => {
              const t = setTimeout(() => reject(new Error('no message')), ms);
              waiters.push((v) => (clearTimeout(t), resolve(v)));
            }),
    pending: () => inbox.length,
    close: () => ws.close(),
  };
}
const kdsHeaders = async (m: DemoSeedResult) => ({ authorization: `Bearer ${await api.deviceToken(m, 'kds')}`, 'x-client-api-key': api.env.DEVICE_API_KEY });

async function ticketAt(m: DemoSeedResult, locationId: string) {
  const tdb: TenantDb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  if (!(await tdb.selectFrom('kitchen_stations').select('id').where('location_id', '=', locationId).executeTakeFirst())) {
    await tdb.insertInto('kitchen_stations').values({ id: crypto.randomUUID(), location_id: locationId, name: 'Elsewhere', category_ids: [cat.id], created_at: new Date(), updated_at: new Date() }).execute();
  }
  const created = await tdb.transaction().execute((tx) =>
    createKitchenTickets(tx, { source: 'transaction', sourceId: crypto.randomUUID(), locationId, orderNo: 'X', at: new Date(), lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Soup', qty: 1, modifiers: [] }] }),
  );
  await publishKitchenEvents(api.deps.redis, m.merchant.tenant_database, created.map((c) => c.event), api.deps.log);
  return created[0]!.event;
}

describe('a kds on the kitchen channel', () => {
  test('gets its own location\'s events only: not another location\'s of its merchant, not another merchant\'s; a location or id in the message is refused', async () => {
    const s = connect(base, await kdsHeaders(a));
    expect(await s.next()).toEqual({ type: 'ready' });
    s.send({ action: 'subscribe', channel: 'kitchen', id: b.locations[0]!.id });
    expect(await s.next()).toEqual({ type: 'error', message: 'The id field is only for the transaction channel.' });
    s.send({ action: 'subscribe', channel: 'kitchen', location_id: a.locations[1]!.id });
    expect(await s.next()).toEqual({ type: 'error', message: 'Unknown field location_id.' });
    s.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await s.next()).toMatchObject({ type: 'subscribed', channel: 'kitchen' });
    const home = a.devices.find((d) => d.type === 'kds')!.location_id;
    const elsewhere = a.locations.find((l) => l.id !== home)!.id;
    await ticketAt(a, elsewhere);
    await ticketAt(b, b.locations[0]!.id);
    const mine = await ticketAt(a, home);
    expect(await s.next()).toEqual(JSON.parse(JSON.stringify(mine)));
    await Bun.sleep(300);
    expect(s.pending()).toBe(0);
    s.close();
  });

  test('a token the device logged out of: refused at open (4401); an open socket is closed at once, not at the next periodic check', async () => {
    const headers = await kdsHeaders(b);
    const s = connect(base, headers);
    expect(await s.next()).toEqual({ type: 'ready' });
    s.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await s.next()).toMatchObject({ type: 'subscribed', channel: 'kitchen' });
    expect((await api.call('POST', '/api/device-auth/logout', { headers })).status).toBe(200);
    // Before: the socket stayed open (and kept receiving the kitchen's orders) until the periodic check.
    expect(await s.next(2000)).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await s.next(2000)).toEqual({ closed: 4401 });
    const again = connect(base, headers);
    expect(await again.next()).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await again.next()).toEqual({ closed: 4401 });
    // The same stale token in the query (as the kitchen screen sends it) is refused the same way.
    const q = connect(`${base}?token=${headers.authorization.slice(7)}&api_key=${api.env.DEVICE_API_KEY}`);
    expect(await q.next()).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await q.next()).toEqual({ closed: 4401 });
  });
});

describe('revocations reach open sockets at once', () => {
  test('a deleted kds is closed (4401) before any later kitchen event reaches it; a re-activated one closes the old token\'s socket and keeps the new one', async () => {
    const m = await api.seed('rt-adv-c');
    const owner = await api.ownerToken(m);
    const kdsId = m.devices.find((d) => d.type === 'kds')!.id;
    const old = connect(base, await kdsHeaders(m));
    expect(await old.next()).toEqual({ type: 'ready' });
    // A fresh activation code, activated: the old token dies, the new one lives.
    const code = await api.call('POST', `/api/back-office/devices/${kdsId}/new-activation-code`, { token: owner });
    expect(code.status).toBe(200);
    const activated = await api.call('POST', '/api/device-auth/activate', { body: { activation_code: code.body.data?.activation_code ?? code.body.activation_code } });
    expect(activated.status).toBe(200);
    expect(await old.next(2000)).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await old.next(2000)).toEqual({ closed: 4401 });
    const fresh = connect(base, { authorization: `Bearer ${activated.body.token}`, 'x-client-api-key': api.env.DEVICE_API_KEY });
    expect(await fresh.next()).toEqual({ type: 'ready' });
    fresh.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await fresh.next()).toMatchObject({ type: 'subscribed', channel: 'kitchen' });
    expect((await api.call('DELETE', `/api/back-office/devices/${kdsId}`, { token: owner })).status).toBe(200);
    expect(await fresh.next(2000)).toEqual({ type: 'error', message: 'Invalid token' });
    expect(await fresh.next(2000)).toEqual({ closed: 4401 });
    await ticketAt(m, m.devices.find((d) => d.type === 'kds')!.location_id);
  });
});
