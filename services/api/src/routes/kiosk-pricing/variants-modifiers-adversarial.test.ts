import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { CardBSimulator } from '@pos/providers/payments';
import type { TestApi } from '../../testing/harness.ts';
import { startKioskPaymentsApi, type KioskPaymentsApi } from '../../testing/kiosk-payments-api.ts';
import { call, signIn, type Register } from '../pos-tills/register-test-support.ts';

// Variants of two groups and a modifier listed twice, priced the same on every channel that prices orders.
let k: KioskPaymentsApi;
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
let owner: string;
let register: Register;

beforeAll(async () => {
  k = await startKioskPaymentsApi('variants-adv');
  ({ api, cardB, m, kiosk, owner } = k);
  register = await signIn(api, m, 'manager', 0);
}, 60_000);
afterAll(() => k.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const quote = (lines: unknown[]) => api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines } });
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const onlinePay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${m.locations[0]!.id}/payment`, { body });
const finishSale = async (key: string) => cardB.complete(key).catch(() => undefined);

describe('an item with two variant groups', () => {
  test('one variant of each group: priced item + each variant\'s difference, the same on the quote, the kiosk sale, the terminal and online', async () => {
    const beer = item('Belgian beer').id; // 4.50
    const size = (await bo('POST', '/variant-groups', { item_id: beer, name: 'Size', variants: [{ name: '25 cl', unit_price: 450 }, { name: '50 cl', unit_price: 800 }] })).body.data;
    const glass = (await bo('POST', '/variant-groups', { item_id: beer, name: 'Glass', variants: [{ name: 'Plain', unit_price: 450 }, { name: 'Chalice', unit_price: 500 }] })).body.data;
    try {
      const big = size.variants[1].id;
      const chalice = glass.variants[1].id;
      const q = await quote([{ item_id: beer, qty: 2, variant_ids: [chalice, big] }]);
      expect(q.status).toBe(200);
      // 4.50 + (8.00 - 4.50) + (5.00 - 4.50) = 8.50 a glass.
      expect(q.body.data.lines[0]).toMatchObject({
        unit_price: 850,
        gross: 1700,
        variant: { id: big, name: '50 cl / Chalice', variants: [{ id: big, name: '50 cl' }, { id: chalice, name: 'Chalice' }] },
        variants: [{ id: big, name: '50 cl' }, { id: chalice, name: 'Chalice' }],
      });
      expect(q.body.data.total).toBe(1700);
      // variant_id counts as one of them.
      expect((await quote([{ item_id: beer, qty: 2, variant_id: big, variant_ids: [chalice] }])).body.data.total).toBe(1700);

      const c = await create({ lines: [{ item_id: beer, qty: 2, variant_ids: [big, chalice] }] });
      expect(c.status).toBe(200);
      expect(c.body.data).toMatchObject({ subtotal: 1700, total: 1700 });
      expect(cardB.session(c.body.data.idempotency_key)!.amount).toBe(1700);
      const stored = await tdb().selectFrom('transaction_lines').select(['unit_price', 'variant']).where('transaction_id', '=', c.body.data.id).executeTakeFirstOrThrow();
      expect(stored).toMatchObject({ unit_price: 850, variant: { id: big, name: '50 cl / Chalice' } });
      await finishSale(c.body.data.idempotency_key);

      const o = await onlinePay({ lines: [{ item_id: beer, qty: 2, variant_ids: [big, chalice] }] });
      expect([o.status, o.body.data?.total]).toEqual([200, 1700]);
    } finally {
      await bo('DELETE', `/variant-groups/${size.id}`);
      await bo('DELETE', `/variant-groups/${glass.id}`);
    }
  });

  test('a group left out, two of one group, or another item\'s variant: 422 on the field, nothing written', async () => {
    const beer = item('Belgian beer').id;
    const size = (await bo('POST', '/variant-groups', { item_id: beer, name: 'Size', variants: [{ name: '25 cl', unit_price: 450 }, { name: '50 cl', unit_price: 800 }] })).body.data;
    const glass = (await bo('POST', '/variant-groups', { item_id: beer, name: 'Glass', variants: [{ name: 'Plain', unit_price: 450 }, { name: 'Chalice', unit_price: 500 }] })).body.data;
    try {
      const [small, big] = size.variants.map((v: { id: string }) => v.id);
      const before = (await tdb().selectFrom('transactions').select('id').execute()).length;
      expect((await quote([{ item_id: beer, qty: 1, variant_id: big }])).body).toMatchObject({ errors: { 'lines.0.variant_ids': ['Choose a Glass of Belgian beer.'] } });
      expect((await quote([{ item_id: beer, qty: 1, variant_ids: [small, big] }])).body).toMatchObject({ errors: { 'lines.0.variant_ids.1': ['Choose one Size of Belgian beer.'] } });
      expect((await quote([{ item_id: beer, qty: 1 }])).body).toMatchObject({ errors: { 'lines.0.variant_id': ['Choose a variant of Belgian beer.'] } });
      expect((await quote([{ item_id: item('Espresso').id, qty: 1, variant_ids: [big] }])).status).toBe(422);
      expect((await create({ lines: [{ item_id: beer, qty: 1, variant_ids: [big] }] })).status).toBe(422);
      expect((await onlinePay({ lines: [{ item_id: beer, qty: 1, variant_ids: [small, big] }] })).status).toBe(422);
      expect((await tdb().selectFrom('transactions').select('id').execute()).length).toBe(before);
    } finally {
      await bo('DELETE', `/variant-groups/${size.id}`);
      await bo('DELETE', `/variant-groups/${glass.id}`);
    }
  });
});

describe('a modifier listed twice', () => {
  test('is two of it, within the group maximum: the quote, the kiosk sale, online and the register charge it twice alike', async () => {
    const espresso = item('Espresso');
    const g = (await bo('POST', '/modifier-groups', { name: 'Shots', min_select: 0, max_select: 2, modifiers: [{ name: 'Extra shot', price: 60 }] })).body.data;
    expect((await bo('PUT', `/items/${espresso.id}`, { modifier_group_ids: [g.id] })).status).toBe(200);
    try {
      const shot = g.modifiers[0].id;
      const q = await quote([{ item_id: espresso.id, qty: 1, modifier_ids: [shot, shot] }]);
      expect(q.body.data.lines[0]).toMatchObject({ unit_price: 400, gross: 400 });
      const c = await create({ lines: [{ item_id: espresso.id, qty: 1, modifier_ids: [shot, shot] }] });
      expect(c.body.data.total).toBe(400);
      await finishSale(c.body.data.idempotency_key);
      expect((await onlinePay({ lines: [{ item_id: espresso.id, qty: 1, modifier_ids: [shot, shot] }] })).body.data.total).toBe(400);
      const mod = { id: shot, name: 'Extra shot', price: 60 };
      const put = await call(register, 'PUT', `/pos/orders/${crypto.randomUUID()}`, {
        lines: [{ uuid: crypto.randomUUID(), item_id: espresso.id, qty: 1, unit_price: espresso.unit_price, price_source: 'catalog', modifiers: [mod, mod] }],
      });
      expect([put.status, put.body.totals?.total]).toEqual([200, 400]);
      // Three is past the group's maximum of 2 on the catalog channels.
      expect((await quote([{ item_id: espresso.id, qty: 1, modifier_ids: [shot, shot, shot] }])).status).toBe(422);
    } finally {
      await bo('PUT', `/items/${espresso.id}`, { modifier_group_ids: [] });
    }
  });
});
