import { describe, expect, test } from 'bun:test';
import { prng, type Prng } from '../testing/prng.ts';
import { localMoment, priceBasket, priceMarketplaceOrder, priceWithBasketDiscount, scheduleOpen, spread, type OfferRule, type PricingLine, type PricingOffer } from './pricing.ts';

const ctx = { channel: 'kiosk', weekday: 1, minute: 12 * 60 };
const line = (key: string, unit_price: number, qty = 1, vat_rate = 21, item_id = key, category_id: string | null = null): PricingLine => ({ key, item_id, category_id, qty, unit_price, vat_rate });
const offer = (rule: OfferRule, o: Partial<PricingOffer> = {}): PricingOffer => ({ id: 'o1', name: 'Offer', rule, item_ids: [], category_ids: [], min_basket: 0, channels: [], schedule: null, ...o });

describe('priceBasket: examples', () => {
  test('no offers: totals are the gross, VAT per rate', () => {
    const r = priceBasket([line('a', 450, 2), line('b', 220, 1, 6)], [], ctx);
    expect(r.subtotal).toBe(1120);
    expect(r.discount).toBe(0);
    expect(r.total).toBe(1120);
    expect(r.by_vat_rate).toEqual([
      { rate: 21, net: 744, vat: 156, gross: 900 },
      { rate: 6, net: 208, vat: 12, gross: 220 },
    ]);
    expect(r.offers).toEqual([]);
  });

  test('percentage off targeted items only', () => {
    const r = priceBasket([line('a', 1000), line('b', 500)], [offer({ kind: 'percentage', percent: 10 }, { item_ids: ['a'] })], ctx);
    expect(r.lines.map((l) => [l.discount, l.total])).toEqual([
      [100, 900],
      [0, 500],
    ]);
    expect(r.offers).toEqual([{ id: 'o1', name: 'Offer', discount: 100 }]);
  });

  test('category targets', () => {
    const r = priceBasket([line('a', 1000, 1, 21, 'a', 'drinks'), line('b', 500, 1, 21, 'b', 'food')], [offer({ kind: 'percentage', percent: 50 }, { category_ids: ['food'] })], ctx);
    expect(r.lines.map((l) => l.discount)).toEqual([0, 250]);
  });

  test('amount off is spread by value and capped at the eligible value', () => {
    const r = priceBasket([line('a', 300), line('b', 100)], [offer({ kind: 'amount', amount: 100 })], ctx);
    expect(r.lines.map((l) => l.discount)).toEqual([75, 25]);
    const capped = priceBasket([line('a', 300)], [offer({ kind: 'amount', amount: 1000 })], ctx);
    expect(capped.total).toBe(0);
    expect(capped.discount).toBe(300);
  });

  test('buy 2 get 1: the cheapest of every three units is free', () => {
    const r = priceBasket([line('a', 500, 2), line('b', 300, 1), line('c', 100, 1)], [offer({ kind: 'buy_x_get_y', buy: 2, get: 1 })], ctx);
    // units 500, 500, 300, 100 -> one group of three -> the cheapest unit (100) is free
    expect(r.lines.map((l) => l.discount)).toEqual([0, 0, 100]);
    const six = priceBasket([line('a', 400, 6)], [offer({ kind: 'buy_x_get_y', buy: 2, get: 1 })], ctx);
    expect(six.discount).toBe(800);
  });

  test('basket minimum is on the subtotal before discounts', () => {
    const o = offer({ kind: 'amount', amount: 200 }, { min_basket: 1000 });
    expect(priceBasket([line('a', 999)], [o], ctx).discount).toBe(0);
    expect(priceBasket([line('a', 1000)], [o], ctx).discount).toBe(200);
  });

  test('channels', () => {
    const o = offer({ kind: 'percentage', percent: 10 }, { channels: ['online_ordering'] });
    expect(priceBasket([line('a', 1000)], [o], ctx).discount).toBe(0);
    expect(priceBasket([line('a', 1000)], [o], { ...ctx, channel: 'online_ordering' }).discount).toBe(100);
  });

  test('offers stack in order on what is left of each line', () => {
    const r = priceBasket([line('a', 1000)], [offer({ kind: 'percentage', percent: 50 }), offer({ kind: 'amount', amount: 800 }, { id: 'o2', name: 'Second' })], ctx);
    expect(r.lines[0]!.total).toBe(0);
    expect(r.offers).toEqual([
      { id: 'o1', name: 'Offer', discount: 500 },
      { id: 'o2', name: 'Second', discount: 500 },
    ]);
  });

  test('invalid input is a RangeError', () => {
    expect(() => priceBasket([line('a', -1)], [], ctx)).toThrow(RangeError);
    expect(() => priceBasket([line('a', 1, 0)], [], ctx)).toThrow(RangeError);
    expect(() => priceBasket([line('a', 1)], [offer({ kind: 'percentage', percent: 101 })], ctx)).toThrow(RangeError);
  });
});

describe('schedule', () => {
  const lunch = { days: [1, 2, 3, 4, 5], start: '11:30', end: '14:00' };
  test('inside and outside the window', () => {
    expect(scheduleOpen(lunch, { weekday: 1, minute: 11 * 60 + 30 })).toBe(true);
    expect(scheduleOpen(lunch, { weekday: 1, minute: 14 * 60 })).toBe(false);
    expect(scheduleOpen(lunch, { weekday: 6, minute: 12 * 60 })).toBe(false);
  });
  test('a window past midnight belongs to the day it opens', () => {
    const late = { days: [5], start: '22:00', end: '02:00' };
    expect(scheduleOpen(late, { weekday: 5, minute: 23 * 60 })).toBe(true);
    expect(scheduleOpen(late, { weekday: 6, minute: 60 })).toBe(true);
    expect(scheduleOpen(late, { weekday: 6, minute: 23 * 60 })).toBe(false);
    expect(scheduleOpen(late, { weekday: 5, minute: 60 })).toBe(false);
  });
  test('the local moment follows the location zone (summer and winter time)', () => {
    expect(localMoment(new Date('2026-07-06T10:00:00Z'), 'Europe/Brussels')).toEqual({ weekday: 1, minute: 12 * 60 });
    expect(localMoment(new Date('2026-11-23T23:30:00Z'), 'Europe/Brussels')).toEqual({ weekday: 2, minute: 30 });
  });
  test('the local moment does not depend on the process time zone (a location wall time in the host zone’s DST gap)', async () => {
    // New York 02:30 on 29 March is Brussels' spring-forward gap; Brussels 02:30 on 8 March is New York's.
    const script = `import { localMoment } from ${JSON.stringify(`${import.meta.dir}/pricing.ts`)};
      console.log(JSON.stringify([
        localMoment(new Date('2026-03-29T06:30:00Z'), 'America/New_York'),
        localMoment(new Date('2026-03-08T01:30:00Z'), 'Europe/Brussels'),
        localMoment(new Date('2026-07-06T10:00:00Z'), 'Europe/Brussels'),
      ]));`;
    const expected = [
      { weekday: 7, minute: 2 * 60 + 30 },
      { weekday: 7, minute: 2 * 60 + 30 },
      { weekday: 1, minute: 12 * 60 },
    ];
    for (const tz of ['Europe/Brussels', 'America/New_York', 'UTC', 'Pacific/Kiritimati']) {
      const p = Bun.spawn([process.execPath, '--no-env-file', '-e', script], { env: { PATH: process.env.PATH ?? '', TZ: tz }, stdout: 'pipe', stderr: 'pipe' });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      expect({ tz, code, err }).toEqual({ tz, code: 0, err: '' });
      expect({ tz, moments: JSON.parse(out) }).toEqual({ tz, moments: expected });
    }
  });
});

function randomRule(r: Prng): OfferRule {
  switch (r.int(0, 2)) {
    case 0:
      return { kind: 'percentage', percent: r.int(1, 100) };
    case 1:
      return { kind: 'amount', amount: r.int(1, 20_000) };
    default:
      return { kind: 'buy_x_get_y', buy: r.int(1, 4), get: r.int(1, 3) };
  }
}

describe('priceBasket: properties', () => {
  test('for random baskets and offers: no line below zero, discount within gross, lines sum to the total', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const r = prng(seed);
      const items = ['i1', 'i2', 'i3', 'i4', 'i5'];
      const lines = Array.from({ length: r.int(0, 8) }, (_, k) => line(`l${k}`, r.int(0, 5000), r.int(1, 12), r.pick([0, 6, 12, 21]), r.pick(items), r.pick([null, 'c1', 'c2'])));
      const offers = Array.from({ length: r.int(0, 4) }, (_, k) =>
        offer(randomRule(r), {
          id: `o${k}`,
          item_ids: r.bool(0.6) ? [] : [r.pick(items)],
          category_ids: r.bool(0.8) ? [] : ['c1'],
          min_basket: r.bool(0.7) ? 0 : r.int(0, 30_000),
          channels: r.bool() ? [] : [r.pick(['kiosk', 'pos'])],
        }),
      );
      const p = priceBasket(lines, offers, ctx);
      for (const l of p.lines) {
        expect(l.total).toBeGreaterThanOrEqual(0);
        expect(l.discount).toBeGreaterThanOrEqual(0);
        expect(l.discount).toBeLessThanOrEqual(l.gross);
        expect(l.gross).toBe(l.qty * l.unit_price);
        expect(l.total).toBe(l.gross - l.discount);
      }
      expect(p.lines.reduce((s, l) => s + l.total, 0)).toBe(p.total);
      expect(p.subtotal - p.discount).toBe(p.total);
      expect(p.offers.reduce((s, o) => s + o.discount, 0)).toBe(p.discount);
      expect(p.by_vat_rate.reduce((s, g) => s + g.gross, 0)).toBe(p.total);
      for (const g of p.by_vat_rate) expect(g.net + g.vat).toBe(g.gross);
    }
  });

  test('spread: shares sum to min(amount, total) and never exceed their weight', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const r = prng(seed);
      const weights = Array.from({ length: r.int(1, 6) }, () => r.int(0, 3000));
      const amount = r.int(0, 12_000);
      const shares = spread(amount, weights);
      const total = weights.reduce((s, w) => s + w, 0);
      expect(shares.reduce((s, x) => s + x, 0)).toBe(Math.min(amount, total));
      shares.forEach((s, i) => {
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(weights[i]!);
      });
    }
  });
});

describe('priceWithBasketDiscount (a marketplace promotion)', () => {
  const line = (key: string, qty: number, unit_price: number, vat_rate: number): PricingLine => ({ key, item_id: `i${key}`, category_id: null, qty, unit_price, vat_rate });

  test('VAT is on what was charged for the goods: 2420 of goods, 1210 collected', () => {
    const p = priceWithBasketDiscount([line('0', 2, 1210, 21)], 1210);
    expect([p.subtotal, p.discount, p.total]).toEqual([2420, 1210, 1210]);
    expect(p.lines.map((l) => [l.gross, l.discount, l.total])).toEqual([[2420, 1210, 1210]]);
    expect(p.by_vat_rate).toEqual([{ rate: 21, net: 1000, vat: 210, gross: 1210 }]);
  });

  test('spread over the lines by their gross, each rate on its discounted gross', () => {
    const p = priceWithBasketDiscount([line('0', 1, 2000, 21), line('1', 1, 1000, 6)], 301);
    expect(p.lines.map((l) => l.discount)).toEqual([201, 100]);
    expect(p.by_vat_rate.map((g) => [g.rate, g.gross])).toEqual([[21, 1799], [6, 900]]);
    expect(p.total).toBe(2699);
    expect(p.by_vat_rate.reduce((s, g) => s + g.gross, 0)).toBe(p.total);
  });

  test('no discount prices at the lines; a discount beyond the goods is capped at the subtotal', () => {
    expect(priceWithBasketDiscount([line('0', 3, 100, 21)], 0)).toMatchObject({ subtotal: 300, discount: 0, total: 300, offers: [] });
    expect(priceWithBasketDiscount([line('0', 3, 100, 21)], 500)).toMatchObject({ subtotal: 300, discount: 300, total: 0 });
  });
});

describe('priceMarketplaceOrder (what a marketplace collected, booked as goods + fees + tip)', () => {
  const mline = (unit_price: number, qty = 1, vat_rate = 21): PricingLine => ({ key: '0', item_id: 'i', category_id: null, qty, unit_price, vat_rate });
  const books = (p: ReturnType<typeof priceMarketplaceOrder>) => p.total + p.fees + p.tip;

  test('collected exactly lines + fee + tip: no discount, the fee and tip as sent', () => {
    const p = priceMarketplaceOrder([mline(500)], { delivery_fee: 300, tip: 100, total: 900 });
    expect([p.subtotal, p.discount, p.total, p.fees, p.tip]).toEqual([500, 0, 500, 300, 100]);
  });

  test('a promotion beyond the goods comes off the delivery fee, then the tip; nothing negative', () => {
    // 5.00 of goods + 3.00 delivery, 1.00 collected: the goods are free, 1.00 of the delivery was paid.
    const p = priceMarketplaceOrder([mline(500)], { delivery_fee: 300, tip: 0, total: 100 });
    expect([p.subtotal, p.discount, p.total, p.fees, p.tip]).toEqual([500, 500, 0, 100, 0]);
    expect(p.by_vat_rate).toEqual([{ rate: 21, net: 0, vat: 0, gross: 0 }]);
    const q = priceMarketplaceOrder([mline(500)], { delivery_fee: 0, tip: 300, total: 200 });
    expect([q.total, q.fees, q.tip]).toEqual([0, 0, 200]);
    expect(books(p)).toBe(100);
    expect(books(q)).toBe(200);
  });

  test('collected more than lines + fee + tip: the rest is a fee, the goods and their VAT unchanged', () => {
    const p = priceMarketplaceOrder([mline(1210)], { delivery_fee: 250, tip: 0, total: 1560 });
    expect([p.subtotal, p.discount, p.total, p.fees, p.tip]).toEqual([1210, 0, 1210, 350, 0]);
    expect(p.by_vat_rate).toEqual([{ rate: 21, net: 1000, vat: 210, gross: 1210 }]);
  });

  test('any amounts: goods + fees + tip = total, each within 0..what the order said', () => {
    for (let i = 0; i < 2000; i++) {
      const r = (n: number) => Math.floor(Math.random() * n);
      const lines = [mline(r(3000), 1 + r(3)), mline(r(3000), 1, 6)];
      const o = { delivery_fee: r(800), tip: r(500), total: r(12000) };
      const p = priceMarketplaceOrder(lines, o);
      expect(books(p)).toBe(o.total);
      expect(p.total).toBeGreaterThanOrEqual(0);
      expect(p.fees).toBeGreaterThanOrEqual(0);
      expect(p.tip).toBeGreaterThanOrEqual(0);
      expect(p.tip).toBeLessThanOrEqual(o.tip);
      expect(p.by_vat_rate.reduce((s, g) => s + g.gross, 0)).toBe(p.total);
    }
  });
});
