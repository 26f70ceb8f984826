import { describe, expect, test } from 'bun:test';
import { MAX_TENDER_CENTS, MAX_TENDER_LEGS, parseSettleBody } from './parse-settle-body.ts';

describe('parseSettleBody: legacy', () => {
  test('amount_tendered alone is the legacy body', () => {
    expect(parseSettleBody({ amount_tendered: 2000 })).toEqual({ ok: true, input: { kind: 'legacy', amount_tendered: 2000 } });
    expect(parseSettleBody({ amount_tendered: 0, tenders: null })).toEqual({
      ok: true,
      input: { kind: 'legacy', amount_tendered: 0 },
    });
  });

  test('amount_tendered must be whole non-negative cents', () => {
    for (const amount_tendered of [-1, 10.5, '2000', true, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
      expect(parseSettleBody({ amount_tendered })).toEqual({
        ok: false,
        errors: [{ field: 'amount_tendered', message: 'amount_tendered must be a whole number of cents, 0 or more.' }],
      });
    }
  });
});

describe('parseSettleBody: amounts a drawer can hold', () => {
  test('a tender is at most MAX_TENDER_CENTS (1,000,000.00): the legacy body and every leg amount', () => {
    expect(MAX_TENDER_CENTS).toBe(100_000_000);
    expect(parseSettleBody({ amount_tendered: MAX_TENDER_CENTS })).toEqual({ ok: true, input: { kind: 'legacy', amount_tendered: MAX_TENDER_CENTS } });
    expect(parseSettleBody({ amount_tendered: MAX_TENDER_CENTS + 1 })).toEqual({
      ok: false,
      errors: [{ field: 'amount_tendered', message: 'amount_tendered may not be greater than 100000000.' }],
    });
    expect(parseSettleBody({ tenders: [{ method: 'card', amount: 2 ** 52 }, { method: 'cash', amount: 100, amount_tendered: 9_000_000_000_000 }] })).toEqual({
      ok: false,
      errors: [
        { field: 'tenders.0.amount', message: 'amount may not be greater than 100000000.' },
        { field: 'tenders.1.amount_tendered', message: 'amount_tendered may not be greater than 100000000.' },
      ],
    });
    expect(parseSettleBody({ tenders: [{ method: 'cash', amount: MAX_TENDER_CENTS, amount_tendered: MAX_TENDER_CENTS }] }).ok).toBe(true);
  });
});

describe('parseSettleBody: body shape', () => {
  test('not an object', () => {
    for (const raw of [null, undefined, 'x', 5, []]) {
      expect(parseSettleBody(raw)).toEqual({ ok: false, errors: [{ field: 'body', message: 'The body must be a JSON object.' }] });
    }
  });

  test('neither amount_tendered nor tenders', () => {
    expect(parseSettleBody({})).toEqual({
      ok: false,
      errors: [{ field: 'tenders', message: 'Send amount_tendered, or tenders with at least one payment.' }],
    });
  });

  test('both is refused', () => {
    expect(parseSettleBody({ amount_tendered: 100, tenders: [{ method: 'cash' }] })).toEqual({
      ok: false,
      errors: [{ field: 'amount_tendered', message: 'Send either amount_tendered or tenders, not both.' }],
    });
  });

  test('tenders must be a non-empty, bounded list', () => {
    expect(parseSettleBody({ tenders: {} })).toEqual({
      ok: false,
      errors: [{ field: 'tenders', message: 'tenders must be a list of payments.' }],
    });
    expect(parseSettleBody({ tenders: [] })).toEqual({
      ok: false,
      errors: [{ field: 'tenders', message: 'tenders must hold at least one payment.' }],
    });
    const tooMany = Array.from({ length: MAX_TENDER_LEGS + 1 }, () => ({ method: 'meal_voucher', amount: 100 }));
    expect(parseSettleBody({ tenders: tooMany })).toEqual({
      ok: false,
      errors: [{ field: 'tenders', message: 'tenders can hold at most 20 payments.' }],
    });
    expect(parseSettleBody({ tenders: tooMany.slice(1) }).ok).toBe(true);
  });
});

describe('parseSettleBody: legs', () => {
  test('keeps known fields in order and drops nulls', () => {
    expect(
      parseSettleBody({
        tenders: [
          { method: 'card', funding: 'debit', amount: 1000, issuer: 'Bancontact' },
          { method: 'cash', amount: null, amount_tendered: 2000, funding: null, issuer: null },
          { method: 'meal_voucher', amount: 3200.0 },
        ],
      }),
    ).toEqual({
      ok: true,
      input: {
        kind: 'multi',
        tenders: [
          { method: 'card', funding: 'debit', amount: 1000, issuer: 'Bancontact' },
          { method: 'cash', amount_tendered: 2000 },
          { method: 'meal_voucher', amount: 3200 },
        ],
      },
    });
  });

  test('leaves method, funding and issuer values to settle', () => {
    expect(parseSettleBody({ tenders: [{ method: 'bitcoin', funding: 'prepaid', issuer: 'Nobody' }] })).toEqual({
      ok: true,
      input: { kind: 'multi', tenders: [{ method: 'bitcoin', funding: 'prepaid', issuer: 'Nobody' }] },
    });
  });

  test('reports every field error with its dot path', () => {
    expect(
      parseSettleBody({
        tenders: [
          'cash',
          { funding: 3, amount: -1, amount_tendered: 1.5, issuer: 7 },
          { method: 'card', amount: 0 },
          { method: 'cash', amount: 0, amount_tendered: 0 },
          { method: '  ', issuer: 'x'.repeat(101) },
        ],
      }),
    ).toEqual({
      ok: false,
      errors: [
        { field: 'tenders.0', message: 'Each payment must be an object.' },
        { field: 'tenders.1.method', message: 'method is required.' },
        { field: 'tenders.1.funding', message: 'funding must be debit or credit.' },
        { field: 'tenders.1.amount', message: 'amount must be a whole number of cents, 0 or more.' },
        { field: 'tenders.1.amount_tendered', message: 'amount_tendered must be a whole number of cents, 0 or more.' },
        { field: 'tenders.1.issuer', message: 'issuer must be text of at most 100 characters.' },
        { field: 'tenders.2.amount', message: 'amount must be more than 0.' },
        { field: 'tenders.4.method', message: 'method is required.' },
        { field: 'tenders.4.issuer', message: 'issuer must be text of at most 100 characters.' },
      ],
    });
  });

  test('provider, the spec\'s word for the issuer pick, is the issuer (issuer stays an alias)', () => {
    expect(parseSettleBody({ tenders: [{ method: 'card', funding: 'credit', provider: 'Visa' }, { method: 'meal_voucher', amount: 100, provider: null }] })).toEqual({
      ok: true,
      input: { kind: 'multi', tenders: [{ method: 'card', funding: 'credit', issuer: 'Visa', issuer_key: 'provider' }, { method: 'meal_voucher', amount: 100 }] },
    });
    expect(parseSettleBody({ tenders: [{ method: 'card', provider: 'x'.repeat(101) }] })).toEqual({
      ok: false,
      errors: [{ field: 'tenders.0.provider', message: 'provider must be text of at most 100 characters.' }],
    });
    expect(parseSettleBody({ tenders: [{ method: 'card', funding: 'credit', provider: 'Visa', issuer: 'Visa' }] })).toEqual({
      ok: false,
      errors: [{ field: 'tenders.0.issuer', message: 'Send the issuer as provider only, not both provider and issuer.' }],
    });
  });

  test('an unknown leg key is a 422 on that field, never silently dropped', () => {
    expect(parseSettleBody({ tenders: [{ method: 'card', funding: 'debit', amount: 1000, extra: 1 }, { method: 'cash', brand: 'Visa', tip: 5 }] })).toEqual({
      ok: false,
      errors: [
        { field: 'tenders.0.extra', message: 'extra is not a payment field.' },
        { field: 'tenders.1.brand', message: 'brand is not a payment field.' },
        { field: 'tenders.1.tip', message: 'tip is not a payment field.' },
      ],
    });
  });
});
