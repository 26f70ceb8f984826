import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { CardASimulator, CardBSimulator } from '@pos/providers/payments';
import type { TestApi } from '../../testing/harness.ts';
import { startKioskPaymentsApi, type KioskPaymentsApi } from '../../testing/kiosk-payments-api.ts';

// Prober 9: pricing and money across channels (kiosk quote, kiosk create-intent, online ordering, table QR).
let k: KioskPaymentsApi;
let cardB: CardBSimulator;
let cardA: CardASimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
let owner: string;

beforeAll(async () => {
  k = await startKioskPaymentsApi('pricing-channels');
  ({ api, cardA, cardB, m, kiosk, owner } = k);
}, 60_000);
afterAll(() => k.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const quote = (lines: unknown[]) => api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines } });
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const loc0 = () => m.locations[0]!.id;
const onlinePay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/payment`, { body });

describe('pricing across channels: modifiers', () => {
  test('a modifier listed twice in a group of max 1 is refused', async () => {
    const g = (await bo('POST', '/modifier-groups', { name: 'Milk', min_select: 0, max_select: 1, modifiers: [{ name: 'Oat milk', price: 40 }, { name: 'Soy milk', price: 30 }] })).body.data;
    expect((await bo('PUT', `/items/${item('Espresso').id}`, { modifier_group_ids: [g.id] })).status).toBe(200);
    const oat = g.modifiers[0].id;
    const ok = await quote([{ item_id: item('Espresso').id, qty: 1, modifier_ids: [oat] }]);
    expect([ok.status, ok.body.data?.lines?.[0]?.unit_price]).toEqual([200, 320]);
    const twice = await quote([{ item_id: item('Espresso').id, qty: 1, modifier_ids: [oat, oat] }]);
    expect(twice.status).toBe(422);
    await bo('PUT', `/items/${item('Espresso').id}`, { modifier_group_ids: [] });
  });

  test('a required group (min 1) must be chosen; a modifier price edit is live on the quote', async () => {
    const g = (await bo('POST', '/modifier-groups', { name: 'Sauce', min_select: 1, max_select: 2, modifiers: [{ name: 'Mayo', price: 50 }, { name: 'Ketchup', price: 0 }] })).body.data;
    expect((await bo('PUT', `/items/${item('Fries with mayonnaise').id}`, { modifier_group_ids: [g.id] })).status).toBe(200);
    const none = await quote([{ item_id: item('Fries with mayonnaise').id, qty: 1 }]);
    expect(none.status).toBe(422);
    const mayo = g.modifiers[0].id;
    const r = await quote([{ item_id: item('Fries with mayonnaise').id, qty: 2, modifier_ids: [mayo] }]);
    expect(r.body.data.lines[0]).toMatchObject({ unit_price: 445, gross: 890 });
    const up = await bo('PUT', `/modifier-groups/${g.id}`, { modifiers: [{ id: mayo, name: 'Mayo', price: 75 }, { id: g.modifiers[1].id, name: 'Ketchup', price: 0 }] });
    expect(up.status).toBe(200);
    const after = await quote([{ item_id: item('Fries with mayonnaise').id, qty: 2, modifier_ids: [mayo] }]);
    expect(after.body.data.lines[0]).toMatchObject({ unit_price: 470, gross: 940 });
    await bo('PUT', `/items/${item('Fries with mayonnaise').id}`, { modifier_group_ids: [] });
  });
});

describe('pricing across channels: catalog edits reach the quote', () => {
  test('an item hidden (visible false) is no longer sold on the kiosk', async () => {
    const id = item('Sparkling water').id;
    expect((await bo('PUT', `/items/${id}`, { visible: false })).status).toBe(200);
    const r = await quote([{ item_id: id, qty: 1 }]);
    expect(r.status).toBe(422);
    await bo('PUT', `/items/${id}`, { visible: true });
    expect((await quote([{ item_id: id, qty: 1 }])).status).toBe(200);
  });

  test('an item taken off the kiosk channel is refused on the kiosk, still sold online', async () => {
    const id = item('Belgian beer').id;
    expect((await bo('PUT', `/items/${id}`, { channels: ['pos', 'online_ordering'] })).status).toBe(200);
    expect((await quote([{ item_id: id, qty: 1 }])).status).toBe(422);
    await bo('PUT', `/items/${id}`, { channels: ['pos', 'kiosk', 'online_ordering', 'qr_ordering', 'delivery'] });
  });

  test('a price change is live: quote and create-intent agree with the new price', async () => {
    const id = item('Croissant').id;
    expect((await bo('PUT', `/items/${id}`, { unit_price: 235 })).status).toBe(200);
    const q = await quote([{ item_id: id, qty: 3 }]);
    expect(q.body.data.total).toBe(705);
    const c = await create({ lines: [{ item_id: id, qty: 3 }] });
    expect([c.status, c.body.data?.total, c.body.data?.subtotal]).toEqual([200, 705, 705]);
    expect(cardB.session(c.body.data.idempotency_key)!.amount).toBe(705);
    await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: c.body.data.idempotency_key } });
    await bo('PUT', `/items/${id}`, { unit_price: 220 });
  });
});

describe('pricing across channels: VAT', () => {
  test('0 % and mixed rates: groups add up to the total, VAT inside each group', async () => {
    const water = item('Sparkling water').id;
    expect((await bo('PUT', `/items/${water}`, { vat_rate: 0 })).status).toBe(200);
    const r = await quote([
      { item_id: water, qty: 1 },
      { item_id: item('Espresso').id, qty: 3 },
      { item_id: item('Spaghetti bolognese').id, qty: 1 },
      { item_id: item('Croissant').id, qty: 1 },
    ]);
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.by_vat_rate).toEqual([
      { rate: 21, gross: 840, vat: 146, net: 694 },
      { rate: 12, gross: 1450, vat: 155, net: 1295 },
      { rate: 6, gross: 220, vat: 12, net: 208 },
      { rate: 0, gross: 300, vat: 0, net: 300 },
    ]);
    expect(d.total).toBe(2810);
    expect(d.vat).toBe(146 + 155 + 12);
    await bo('PUT', `/items/${water}`, { vat_rate: 21 });
  });
});

const offer = async (body: Record<string, unknown>) => {
  const r = await bo('POST', '/offers', { item_ids: [], min_basket: 0, ...body });
  if (r.status !== 201) throw new Error(`offer ${r.status} ${r.text}`);
  const a = await bo('POST', `/offers/activate/${r.body.data.id}`);
  if (a.status !== 200) throw new Error(`activate ${a.status} ${a.text}`);
  return r.body.data.id as string;
};
const dropOffer = async (id: string) => {
  await bo('POST', `/offers/deactivate/${id}`);
  await bo('DELETE', `/offers/${id}`);
};

describe('pricing across channels: the same basket across channels', () => {
  test('online offers/validate answers what the online payment charges (online-only offer, two lines)', async () => {
    const id = await offer({ name: 'Web 15', rule: { kind: 'percentage', percent: 15 }, channels: ['online_ordering'] });
    try {
      const lines = [{ item_id: item('Espresso').id, qty: 3 }, { item_id: item('Spaghetti bolognese').id, qty: 1 }];
      const v = await api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/offers/validate`, { body: { lines } });
      expect(v.status).toBe(200);
      const p = await onlinePay({ lines });
      expect(p.status).toBe(200);
      expect(p.body.data.total).toBe(v.body.data.total);
      expect(cardA.intent(p.body.data.payment.id)?.amount ?? p.body.data.payment.amount).toBe(v.body.data.total);
      // The kiosk does not get the online-only offer.
      expect((await quote(lines)).body.data.discount).toBe(0);
    } finally {
      await dropOffer(id);
    }
  });

  test('an item whose menu is withdrawn between quote and create-intent is refused and nothing is written', async () => {
    const menu = await tdb().selectFrom('menus').select('id').where('location_id', '=', loc0()).where('status', '=', 'published').executeTakeFirstOrThrow();
    const lines = [{ item_id: item('Espresso').id, qty: 1 }];
    expect((await quote(lines)).status).toBe(200);
    const before = (await tdb().selectFrom('transactions').select('id').execute()).length;
    expect((await bo('POST', `/menus/draft/${menu.id}`)).status).toBe(200);
    try {
      const c = await create({ lines });
      expect(c.status).toBe(422);
      expect((await tdb().selectFrom('transactions').select('id').execute()).length).toBe(before);
      expect((await quote(lines)).status).toBe(422);
    } finally {
      expect((await bo('POST', `/menus/publish/${menu.id}`)).status).toBe(200);
    }
  });

  test('stacked percentage then buy-1-get-1: quote == create-intent == terminal amount; lines add up', async () => {
    const a = await offer({ name: 'Half', rule: { kind: 'percentage', percent: 50 }, channels: ['kiosk'] });
    const b = await offer({ name: 'B1G1', rule: { kind: 'buy_x_get_y', buy: 1, get: 1 }, channels: ['kiosk'], item_ids: [item('Espresso').id] });
    try {
      const lines = [{ item_id: item('Espresso').id, qty: 3 }, { item_id: item('Fries with mayonnaise').id, qty: 1 }];
      const q = (await quote(lines)).body.data;
      expect(q.lines.reduce((s: number, l: any) => s + l.total, 0)).toBe(q.total);
      expect(q.by_vat_rate.reduce((s: number, g: any) => s + g.gross, 0)).toBe(q.total);
      const c = await create({ lines, tip_amount: 100 });
      expect(c.status).toBe(200);
      expect([c.body.data.subtotal, c.body.data.discount, c.body.data.total]).toEqual([q.subtotal, q.discount, q.total + 100]);
      const s = cardB.session(c.body.data.idempotency_key)!;
      expect([s.amount, s.tipAmount]).toEqual([q.total, 100]);
      await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: c.body.data.idempotency_key } });
    } finally {
      await dropOffer(a);
      await dropOffer(b);
    }
  });
});

describe('pricing across channels: offer schedule in the location zone', () => {
  test('a window open in UTC but not in Europe/Brussels does not apply; one open in Brussels does', async () => {
    const { formatInTimeZone } = await import('date-fns-tz');
    const now = new Date();
    const hhmm = (d: Date, tz: string) => formatInTimeZone(d, tz, 'HH:mm');
    const days = [1, 2, 3, 4, 5, 6, 7];
    // Brussels is ahead of UTC: [UTC now - 30 min, UTC now + 30 min] read in Brussels is in its past.
    const utcOnly = await offer({ name: 'UTC window', rule: { kind: 'percentage', percent: 10 }, channels: ['kiosk'], schedule: { days, start: hhmm(new Date(now.getTime() - 1_800_000), 'UTC'), end: hhmm(new Date(now.getTime() + 1_800_000), 'UTC') } });
    const local = await offer({ name: 'Local window', rule: { kind: 'amount', amount: 100 }, channels: ['kiosk'], schedule: { days, start: hhmm(new Date(now.getTime() - 1_800_000), 'Europe/Brussels'), end: hhmm(new Date(now.getTime() + 1_800_000), 'Europe/Brussels') } });
    try {
      const q = await quote([{ item_id: item('Spaghetti bolognese').id, qty: 1 }]);
      expect(q.body.data.offers.map((o: any) => o.name)).toEqual(['Local window']);
      expect(q.body.data.total).toBe(1350);
    } finally {
      await dropOffer(utcOnly);
      await dropOffer(local);
    }
  });
});

describe('pricing across channels: offers scoped to a location', () => {
  test('an active offer of location 1 does not discount location 0 on the kiosk or online', async () => {
    const id = await offer({ name: 'Station only', rule: { kind: 'percentage', percent: 30 }, location_ids: [m.locations[1]!.id] });
    try {
      const lines = [{ item_id: item('Spaghetti bolognese').id, qty: 1 }];
      expect((await quote(lines)).body.data.discount).toBe(0);
      const v = await api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/offers/validate`, { body: { lines } });
      expect(v.body.data.discount).toBe(0);
      const listed = await api.call('GET', '/api/kiosk/offers', { token: kiosk, deviceKey: true });
      expect(listed.body.data.map((o: any) => o.id)).not.toContain(id);
    } finally {
      await dropOffer(id);
    }
  });
});

describe('pricing across channels: variants and foreign modifiers', () => {
  test('a variant or modifier of another item is refused; a variant price replaces the item price; nothing written', async () => {
    const beer = item('Belgian beer').id;
    const vg = await bo('POST', '/variant-groups', { item_id: beer, name: 'Size', variants: [{ name: '25 cl', unit_price: 450 }, { name: '50 cl', unit_price: 800 }] });
    expect(vg.status).toBe(201);
    const g = (await bo('POST', '/modifier-groups', { name: 'Topping', min_select: 0, max_select: 3, modifiers: [{ name: 'Lemon', price: 20 }] })).body.data;
    await bo('PUT', `/items/${item('Sparkling water').id}`, { modifier_group_ids: [g.id] });
    try {
      const big = vg.body.data.variants[1].id;
      expect((await quote([{ item_id: beer, qty: 2, variant_id: big }])).body.data.lines[0]).toMatchObject({ unit_price: 800, gross: 1600 });
      expect((await quote([{ item_id: beer, qty: 1 }])).status).toBe(422);
      expect((await quote([{ item_id: item('Espresso').id, qty: 1, variant_id: big }])).status).toBe(422);
      expect((await quote([{ item_id: beer, qty: 1, variant_id: big, modifier_ids: [g.modifiers[0].id] }])).status).toBe(422);
      const before = (await tdb().selectFrom('transactions').select('id').execute()).length;
      expect((await create({ lines: [{ item_id: beer, qty: 1, variant_id: big, modifier_ids: [g.modifiers[0].id] }] })).status).toBe(422);
      expect((await onlinePay({ lines: [{ item_id: beer, qty: 1, variant_id: big, modifier_ids: [g.modifiers[0].id] }] })).status).toBe(422);
      expect((await tdb().selectFrom('transactions').select('id').execute()).length).toBe(before);
    } finally {
      await bo('DELETE', `/variant-groups/${vg.body.data.id}`);
      await bo('PUT', `/items/${item('Sparkling water').id}`, { modifier_group_ids: [] });
    }
  });
});

describe('pricing across channels: no floats', () => {
  test('fractional qty, tip or string numbers are 422 everywhere and nothing is written', async () => {
    const before = (await tdb().selectFrom('transactions').select('id').execute()).length;
    const e = item('Espresso').id;
    const rs = [
      await quote([{ item_id: e, qty: 1.5 }]),
      await quote([{ item_id: e, qty: '2' }]),
      await create({ lines: [{ item_id: e, qty: 1 }], tip_amount: 0.1 }),
      await create({ lines: [{ item_id: e, qty: 1 }], tip_amount: '10' }),
      await onlinePay({ lines: [{ item_id: e, qty: 1 }], tip_amount: 20.5 }),
      await onlinePay({ lines: [{ item_id: e, qty: 0.5 }] }),
    ];
    expect(rs.map((r) => r.status)).toEqual([422, 422, 422, 422, 422, 422]);
    expect((await tdb().selectFrom('transactions').select('id').execute()).length).toBe(before);
  });
});

describe('pricing across channels: kiosk dining option follows the in-house settings', () => {
  test('with takeaway switched off for the location, a kiosk Takeaway order is refused and nothing is written', async () => {
    const put = await bo('PUT', `/in-house-settings/${loc0()}`, { takeaway: false });
    expect(put.status).toBe(200);
    const before = (await tdb().selectFrom('transactions').select('id').execute()).length;
    const c = await create({ lines: [{ item_id: item('Espresso').id, qty: 1 }], dining_option: 'Takeaway' });
    // The quote of the same basket says so first (before: 422 "unexpected property" for any dining_option).
    const quoted = await api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item('Espresso').id, qty: 1 }], dining_option: 'Takeaway' } });
    const forHere = await api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item('Espresso').id, qty: 1 }], dining_option: 'For Here' } });
    try {
      expect([quoted.status, Object.keys(quoted.body.errors ?? {})]).toEqual([422, ['dining_option']]);
      expect(forHere.status).toBe(200);
      expect(c.status).toBe(422);
      expect(Object.keys(c.body.errors ?? {})).toEqual(['dining_option']);
      expect((await tdb().selectFrom('transactions').select('id').execute()).length).toBe(before);
    } finally {
      if (c.status === 200) await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: c.body.data.idempotency_key } });
      await bo('PUT', `/in-house-settings/${loc0()}`, { takeaway: true });
    }
  });
});

describe('pricing across channels: an item sold in variants on the register', () => {
  test('a register catalog line of an item sold only in variants is not sold at the item base price (the kiosk asks for a variant)', async () => {
    const beer = item('Belgian beer').id;
    const vg = await bo('POST', '/variant-groups', { item_id: beer, name: 'Size', variants: [{ name: '33 cl', unit_price: 550 }, { name: '50 cl', unit_price: 800 }] });
    expect(vg.status).toBe(201);
    try {
      // The kiosk: the item has no price of its own once sold in variants.
      const k = await quote([{ item_id: beer, qty: 1 }]);
      expect([k.status, Object.keys(k.body.errors ?? {})]).toEqual([422, ['lines.0.variant_id']]);
      // The register, same location, same catalog.
      const pos = await api.deviceToken(m, 'pos', 0);
      const cashier = await api.staffLogin(m, 'cashier', pos);
      const r = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, {
        token: pos,
        deviceKey: true,
        staffToken: cashier,
        body: { lines: [{ uuid: crypto.randomUUID(), item_id: beer, qty: 1, unit_price: 450, price_source: 'catalog', modifiers: [] }] },
      });
      // Observed: 200 with the beer at 450, a price no variant of it has.
      expect(r.status).toBe(422);
    } finally {
      await bo('DELETE', `/variant-groups/${vg.body.data.id}`);
    }
  });
});

describe('pricing across channels: catalog price bounds across channels', () => {
  test('an item the catalog prices at 15,000.00 (within its 0..10,000,000 cents) is sold on the kiosk and on the register alike', async () => {
    const id = item('Spaghetti bolognese').id;
    expect((await bo('PUT', `/items/${id}`, { unit_price: 1_500_000 })).status).toBe(200);
    try {
      const k = await quote([{ item_id: id, qty: 1 }]);
      expect([k.status, k.body.data?.total]).toEqual([200, 1_500_000]);
      const pos = await api.deviceToken(m, 'pos', 0);
      const cashier = await api.staffLogin(m, 'cashier', pos);
      const r = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, {
        token: pos,
        deviceKey: true,
        staffToken: cashier,
        body: { lines: [{ uuid: crypto.randomUUID(), item_id: id, qty: 1, unit_price: 1_500_000, price_source: 'catalog', modifiers: [] }] },
      });
      // Sent with any other unit price, the same catalog line is taken, priced at 1,500,000 from the catalog.
      const other = await api.call('PUT', `/api/pos/orders/${crypto.randomUUID()}`, { token: pos, deviceKey: true, staffToken: cashier, body: { lines: [{ uuid: crypto.randomUUID(), item_id: id, qty: 1, unit_price: 1000, price_source: 'catalog', modifiers: [] }] } });
      expect([other.status, other.body.totals?.total]).toEqual([200, 1_500_000]);
      expect([r.status, r.body.totals?.total]).toEqual([200, 1_500_000]);
    } finally {
      await bo('PUT', `/items/${id}`, { unit_price: 1450 });
    }
  });
});
