import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { backgroundCapturesSettled } from '../../testing/background-captures.ts';

// decisions.md (Catalog): item channels are `pos`, `kiosk`, `online_ordering`, `qr_ordering`, `delivery`.
// A table QR order should be priced on the items sold on `qr_ordering`, not on `online_ordering`.
let api: TestApi;
let a: DemoSeedResult;
let owner: string;
let sessionId: string;
beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('table-channel');
  owner = await api.ownerToken(a);
  // Payment test mode: no provider needed, the order completes right after the response.
  await bindTenant(api.deps.db, a.merchant.tenant_database).updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', a.locations[0]!.id).execute();
  // Table QR ordering on (off by default: the tests below that need it off turn it off themselves).
  await api.call('PUT', `/api/back-office/qr-ordering/${a.locations[0]!.id}`, { token: owner, body: { enabled: true } });
  const s = await api.call('POST', '/api/back-office/table-sections', { token: owner, body: { location_id: a.locations[0]!.id, name: 'Terrace', tables: 5 } });
  if (s.status !== 201) throw new Error(`section ${s.status} ${s.text}`);
  const scan = await api.call('GET', `/api/table-qr-ordering/${a.locations[0]!.id}/${s.body.data.id}/2`);
  if (scan.status !== 200) throw new Error(`scan ${scan.status} ${scan.text}`);
  sessionId = scan.body.data.id;
}, 60_000);
afterAll(async () => {
  await backgroundCapturesSettled(api.deps.db, a.merchant.tenant_database);
  await api.close();
});

const loc0 = () => a.locations[0]!.id;
const pay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body });
const setChannels = async (itemId: string, channels: string[]) => {
  const r = await api.call('PUT', `/api/back-office/items/${itemId}`, { token: owner, body: { channels } });
  expect(r.status).toBe(200);
};

describe('table QR orders are priced on the qr_ordering channel', () => {
  test('an item withdrawn from qr_ordering (still online) can be ordered from a table', async () => {
    const item = a.items[0]!;
    await setChannels(item.id, ['pos', 'kiosk', 'online_ordering', 'delivery']);
    try {
      const r = await pay({ lines: [{ item_id: item.id, qty: 1 }], table_session_id: sessionId });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors ?? {})).toEqual(['lines.0.item_id']);
    } finally {
      await setChannels(item.id, ['pos', 'kiosk', 'online_ordering', 'qr_ordering', 'delivery']);
    }
  });

  test('an item sold on qr_ordering only cannot be ordered from a table', async () => {
    const item = a.items[1]!;
    await setChannels(item.id, ['pos', 'kiosk', 'qr_ordering']);
    try {
      const r = await pay({ lines: [{ item_id: item.id, qty: 1 }], table_session_id: sessionId });
      expect(r.body.errors).toBeUndefined();
      expect(r.status).toBe(200);
    } finally {
      await setChannels(item.id, ['pos', 'kiosk', 'online_ordering', 'qr_ordering', 'delivery']);
    }
  });

  test('an active offer limited to the qr_ordering channel does not apply to a table order (and an online-only one does)', async () => {
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const qrOffer = Bun.randomUUIDv7();
    const now = new Date();
    await tdb.insertInto('offers').values({ id: qrOffer, name: 'QR half price', status: 'active', rule: JSON.stringify({ kind: 'percentage', percent: 50 }), channels: ['qr_ordering'], min_basket: 0, position: 0, created_at: now, updated_at: now } as never).execute();
    try {
      const item = a.items[0]!;
      const r = await pay({ lines: [{ item_id: item.id, qty: 2 }], table_session_id: sessionId });
      expect(r.status).toBe(200);
      // Observed: total = full price (the order is priced on channel online_ordering).
      expect(r.body.data.total).toBe(item.unit_price);
    } finally {
      await tdb.deleteFrom('offers').where('id', '=', qrOffer).execute();
    }
  });
});

describe('table QR ordering follows its own enabled setting, not online ordering', () => {
  const qr = (body: Record<string, unknown>) => api.call('PUT', `/api/back-office/qr-ordering/${loc0()}`, { token: owner, body });
  const online = (body: Record<string, unknown>) => api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body });
  const count = async () => Number((await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const line = () => ({ item_id: a.items[1]!.id, qty: 1 });

  test('with table QR ordering disabled (the default), a table order is refused and nothing is stored', async () => {
    expect((await qr({ enabled: false })).body.data.enabled).toBe(false);
    try {
      const before = await count();
      expect(await pay({ lines: [line()], table_session_id: sessionId })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
      expect(await count()).toBe(before);
    } finally {
      await qr({ enabled: true });
    }
  });

  test('with table QR ordering disabled, a table scan is refused as a table order is and opens no session', async () => {
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const sessions = async () => Number((await tdb.selectFrom('table_sessions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const section = (await tdb.selectFrom('table_sections').select('id').where('name', '=', 'Terrace').executeTakeFirstOrThrow()).id;
    expect((await qr({ enabled: false })).body.data.enabled).toBe(false);
    try {
      const before = await sessions();
      expect(await api.call('GET', `/api/table-qr-ordering/${loc0()}/${section}/4`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
      expect(await sessions()).toBe(before);
    } finally {
      await qr({ enabled: true });
    }
    // Back on, the same table opens its session.
    expect(await api.call('GET', `/api/table-qr-ordering/${loc0()}/${section}/4`)).toMatchObject({ status: 200, body: { opened: true, data: { table_number: 4, status: 'open' } } });
  });

  test('with table QR ordering enabled and online ordering off (or snoozed), a table can still order; a pickup order cannot', async () => {
    expect((await online({ enabled: false })).status).toBe(200);
    try {
      const r = await pay({ lines: [line()], table_session_id: sessionId });
      expect(r.status).toBe(200);
      expect((await pay({ lines: [line()] })).status).toBe(404);
    } finally {
      await online({ enabled: true });
    }
    expect((await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 60 } })).status).toBe(200);
    try {
      expect((await pay({ lines: [line()], table_session_id: sessionId })).status).toBe(200);
    } finally {
      await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 0 } });
    }
  });

  test('a table order is served at the table: stored Dine In; a dining option or a timeslot sent with it is a 422, nothing stored', async () => {
    const r = await pay({ lines: [line()], table_session_id: sessionId });
    expect(r.status).toBe(200);
    const t = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select('dining_option').where('id', '=', r.body.data.transaction_id).executeTakeFirstOrThrow();
    expect(t.dining_option).toBe('Dine In');
    const before = await count();
    expect(await pay({ lines: [line()], table_session_id: sessionId, dining_option: 'Delivery' })).toMatchObject({ status: 422, body: { errors: { dining_option: ['A table order is served at its table; it takes no dining option.'] } } });
    expect(await pay({ lines: [line()], table_session_id: sessionId, scheduled_for: new Date(Date.now() + 86_400_000).toISOString() })).toMatchObject({ status: 422, body: { errors: { scheduled_for: ['A table order is served now; it cannot be scheduled.'] } } });
    expect(await count()).toBe(before);
  });
});

describe('a guest at a table gets the quote their payment will charge', () => {
  const validate = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/offers/validate`, { body });

  test('with table_session_id the basket is priced on qr_ordering: its items and its offers, as the payment charges', async () => {
    const item = a.items[1]!;
    await setChannels(item.id, ['pos', 'kiosk', 'qr_ordering']);
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const qrOffer = Bun.randomUUIDv7();
    const now = new Date();
    await tdb.insertInto('offers').values({ id: qrOffer, name: 'QR half price', status: 'active', rule: JSON.stringify({ kind: 'percentage', percent: 50 }), channels: ['qr_ordering'], min_basket: 0, position: 0, created_at: now, updated_at: now } as never).execute();
    try {
      const lines = [{ item_id: item.id, qty: 2 }];
      // The online channel does not sell the item: the storefront's quote refuses it.
      const online = await validate({ lines });
      expect([online.status, Object.keys(online.body.errors ?? {})]).toEqual([422, ['lines.0.item_id']]);
      const table = await validate({ lines, table_session_id: sessionId });
      expect(table.status).toBe(200);
      expect(table.body.data).toMatchObject({ location_id: loc0(), subtotal: item.unit_price * 2, discount: item.unit_price, total: item.unit_price, offers: [{ id: qrOffer, name: 'QR half price', discount: item.unit_price }] });
      const paid = await pay({ lines, table_session_id: sessionId });
      expect([paid.status, paid.body.data?.total]).toEqual([200, table.body.data.total]);
    } finally {
      await tdb.deleteFrom('offers').where('id', '=', qrOffer).execute();
      await setChannels(item.id, ['pos', 'kiosk', 'online_ordering', 'qr_ordering', 'delivery']);
    }
  });

  test('an unknown session is 404 table_session, a closed one 422 session_closed, table QR off 404 location', async () => {
    const lines = [{ item_id: a.items[0]!.id, qty: 1 }];
    const unknown = await validate({ lines, table_session_id: crypto.randomUUID() });
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Unable to locate the table session you requested.']);
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const closed = Bun.randomUUIDv7();
    const open = await tdb.selectFrom('table_sessions').selectAll().where('id', '=', sessionId).executeTakeFirstOrThrow();
    await tdb.insertInto('table_sessions').values({ ...open, id: closed, status: 'closed' } as never).execute();
    const r = await validate({ lines, table_session_id: closed });
    expect([r.status, r.body.reason, r.body.message]).toEqual([422, 'session_closed', 'The table session is closed.']);
    await api.call('PUT', `/api/back-office/qr-ordering/${loc0()}`, { token: owner, body: { enabled: false } });
    try {
      expect((await validate({ lines, table_session_id: sessionId })).status).toBe(404);
    } finally {
      await api.call('PUT', `/api/back-office/qr-ordering/${loc0()}`, { token: owner, body: { enabled: true } });
    }
  });

  test('table_session_id must be a UUID (422), nothing else is taken beside the lines', async () => {
    const lines = [{ item_id: a.items[0]!.id, qty: 1 }];
    const r = await validate({ lines, table_session_id: 'table-2' });
    expect([r.status, r.body.errors]).toEqual([422, { table_session_id: ['The table session id must be a UUID.'] }]);
  });
});
