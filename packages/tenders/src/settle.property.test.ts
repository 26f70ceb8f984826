import { describe, expect, test } from 'bun:test';
import { issuerInstrument } from './issuers.ts';
import { paymentLines } from './payment-lines.ts';
import { TENDER_MESSAGES } from './refusal-messages.ts';
import { settle } from './settle.ts';
import type { FrozenTender, PosTenders, TenderLegInput } from './types.ts';

/** mulberry32: a tiny seeded PRNG, so a failing case can be replayed from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
const pick = <T,>(rng: Rng, items: readonly T[]): T => items[int(rng, 0, items.length - 1)] as T;
const chance = (rng: Rng, p: number): boolean => rng() < p;

const ISSUER_POOL = ['Bancontact', 'Visa', 'Mastercard', 'Pluxee', 'Edenred', 'Monizze', 'ShopCard'];

function randomConfig(rng: Rng): PosTenders {
  const names = () => ISSUER_POOL.filter(() => chance(rng, 0.25));
  return {
    enabled: (['card', 'meal_voucher', 'gift_voucher'] as const).filter(() => chance(rng, 0.8)),
    issuers: { card_debit: names(), card_credit: names(), meal_voucher: names(), gift_voucher: names() },
  };
}

function randomTotal(rng: Rng): number {
  const r = rng();
  if (r < 0.1) return int(rng, 0, 12); // around the under-5-cents rule
  return int(rng, 13, 50_000);
}

/** A split that must be accepted: non-cash legs of at least 1 cent, cash (if any) pays a positive rest. */
function validSplit(rng: Rng, total: number, config: PosTenders): TenderLegInput[] {
  const withCash = config.enabled.length === 0 || total === 0 || chance(rng, 0.6);
  const nonCashCount = total === 0 ? 0 : int(rng, withCash ? 0 : 1, Math.min(4, config.enabled.length === 0 ? 0 : 4));
  const budget = withCash ? total - 1 : total; // cash keeps at least 1 cent, or it would not be needed
  const cuts = Array.from({ length: Math.max(0, nonCashCount - 1) }, () => int(rng, 0, Math.max(0, budget)));
  const shareEnd = withCash ? int(rng, 0, Math.max(0, budget)) : budget;
  const points = [0, ...cuts.map((c) => Math.min(c, shareEnd)).sort((x, y) => x - y), shareEnd];
  const legs: TenderLegInput[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const amount = (points[i + 1] ?? 0) - (points[i] ?? 0);
    if (amount <= 0 || config.enabled.length === 0) continue;
    const method = pick(rng, config.enabled);
    const funding = pick(rng, ['debit', 'credit'] as const);
    const instrument = method === 'card' ? issuerInstrument({ kind: 'card', funding }) : method;
    const configured = config.issuers[instrument];
    const issuer = configured.length > 0 && chance(rng, 0.5) ? pick(rng, configured) : undefined;
    legs.push({ method, amount, ...(method === 'card' ? { funding } : {}), ...(issuer ? { issuer } : {}) });
  }
  const paidByOthers = legs.reduce((sum, leg) => sum + (leg.amount ?? 0), 0);
  if (!withCash) {
    // The last non-cash leg may leave its amount out and pay the rest.
    const last = legs[legs.length - 1];
    if (last && chance(rng, 0.3)) legs[legs.length - 1] = { ...last, amount: null };
    return legs;
  }
  const cashShare = total - paidByOthers;
  // Tendered at least share + 2 always covers the rounded share (rounding moves at most 2 cents).
  const cash: TenderLegInput = {
    method: 'cash',
    ...(chance(rng, 0.2) ? { amount: cashShare } : {}),
    ...(chance(rng, 0.8) ? { amount_tendered: cashShare + 2 + int(rng, 0, 5000) } : {}),
  };
  legs.splice(int(rng, 0, legs.length), 0, cash);
  return legs;
}

/** Anything at all, including methods the location does not take and amounts that do not add up. */
function noisySplit(rng: Rng, total: number): TenderLegInput[] {
  return Array.from({ length: int(rng, 0, 4) }, () => ({
    method: pick(rng, ['cash', 'cash', 'card', 'card', 'meal_voucher', 'gift_voucher', 'bitcoin']),
    ...(chance(rng, 0.8) ? { funding: pick(rng, ['debit', 'credit', 'prepaid', null]) } : {}),
    ...(chance(rng, 0.7) ? { amount: int(rng, 0, Math.max(1, total)) } : {}),
    ...(chance(rng, 0.6) ? { amount_tendered: int(rng, 0, total + 2000) } : {}),
    ...(chance(rng, 0.3) ? { issuer: pick(rng, [...ISSUER_POOL, '', null]) } : {}),
  }));
}

function assertTenderInvariants(tender: FrozenTender, total: number, inputs: readonly TenderLegInput[], config: PosTenders): void {
  expect(tender.total).toBe(total);
  expect(tender.legs.reduce((sum, leg) => sum + leg.amount, 0) + tender.rounding).toBe(total);
  expect(tender.legs.map((leg) => leg.kind)).toEqual(inputs.map((leg) => leg.method) as never);

  const cashLegs = tender.legs.filter((leg) => leg.kind === 'cash');
  expect(cashLegs.length).toBeLessThanOrEqual(1);
  const cash = cashLegs[0];
  if (cash === undefined) {
    expect(tender.rounding).toBe(0);
    expect('change' in tender || 'amount_tendered' in tender).toBe(false);
  } else {
    const rawShare = cash.amount + cash.rounding;
    // Beside card or voucher legs, a cash leg always pays something.
    if (tender.legs.length > 1) expect(rawShare).toBeGreaterThan(0);
    expect(cash.rounding).toBe(tender.rounding);
    expect(Math.abs(cash.rounding)).toBeLessThanOrEqual(2);
    if (rawShare < 5) expect(cash.rounding).toBe(0);
    else expect(cash.amount % 5).toBe(0);
    expect(cash.change).toBeGreaterThanOrEqual(0);
    expect(cash.tendered - cash.change).toBe(cash.amount);
    expect(tender.change).toBe(cash.change);
    expect(tender.amount_tendered).toBe(cash.tendered);
  }

  for (const leg of tender.legs) {
    expect(leg.amount).toBeGreaterThanOrEqual(0);
    if (leg.kind !== 'cash' && leg.issuer !== undefined) {
      expect(config.issuers[issuerInstrument(leg)]).toContain(leg.issuer);
    }
  }

  const lines = paymentLines(tender);
  expect(lines.reduce((sum, line) => sum + line.amount, 0)).toBe(total);
  lines.forEach((line, i) => {
    if (line.amountType === 'ROUNDING') {
      expect(line.type).toBe('CASH');
      expect(lines[i - 1]).toMatchObject({ type: 'CASH', amountType: 'PAYMENT' });
    }
  });
  expect(lines.filter((line) => line.amountType === 'ROUNDING').length).toBe(tender.rounding === 0 ? 0 : 1);
}

describe('settle properties (seeded)', () => {
  test('3000 valid splits are all accepted and keep every invariant', () => {
    const rng = mulberry32(20_240_601);
    let splits = 0;
    let rounded = 0;
    for (let i = 0; i < 3000; i++) {
      const config = randomConfig(rng);
      const total = randomTotal(rng);
      const tenders = validSplit(rng, total, config);
      const result = settle({ total, body: { kind: 'multi', tenders }, config });
      if (!result.ok) throw new Error(`case ${i} refused ${result.code}: ${JSON.stringify({ total, tenders, config })}`);
      assertTenderInvariants(result.tender, total, tenders, config);
      if (result.tender.legs.length > 1) splits++;
      if (result.tender.legs.length > 1 && result.tender.rounding !== 0) rounded++;
    }
    // Guard against a generator that only ever makes trivial baskets.
    expect(splits).toBeGreaterThan(1000);
    expect(rounded).toBeGreaterThan(300);
  });

  test('3000 legacy cash sales are accepted when tendered covers the rounded total', () => {
    const rng = mulberry32(7);
    for (let i = 0; i < 3000; i++) {
      const total = randomTotal(rng);
      const tendered = total + 2 + int(rng, 0, 5000);
      const config = randomConfig(rng);
      const result = settle({ total, body: { kind: 'legacy', amount_tendered: tendered }, config });
      if (!result.ok) throw new Error(`case ${i} refused ${result.code}`);
      assertTenderInvariants(result.tender, total, [{ method: 'cash' }], config);
    }
  });

  test('4000 random bodies either keep every invariant or give a known refusal', () => {
    const rng = mulberry32(424_242);
    const codes = new Set<string>();
    let accepted = 0;
    for (let i = 0; i < 4000; i++) {
      const config = randomConfig(rng);
      const total = chance(rng, 0.03) ? -int(rng, 1, 1000) : randomTotal(rng);
      const tenders = noisySplit(rng, total);
      const result = settle({ total, body: { kind: 'multi', tenders }, config });
      if (result.ok) {
        accepted++;
        assertTenderInvariants(result.tender, total, tenders, config);
      } else {
        codes.add(result.code);
        expect(result.message).toBe(TENDER_MESSAGES[result.code]);
        if (result.code === 'negative_total') expect(total).toBeLessThan(0);
      }
    }
    // The noise is rich enough to reach every refusal and still settle some sales.
    expect([...codes].sort()).toEqual(Object.keys(TENDER_MESSAGES).sort());
    expect(accepted).toBeGreaterThan(50);
  });
});
