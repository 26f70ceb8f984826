import { describe, expect, test } from 'bun:test';
import { CASH_ONLY, normalisePosTenders } from './normalise-config.ts';
import type { PosTenders } from './types.ts';

const cashOnly = {
  enabled: [],
  issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] },
};

describe('normalisePosTenders', () => {
  test('unconfigured or invalid means cash only', () => {
    for (const raw of [undefined, null, 0, 42, true, [], ['card'], '', 'not json', '"card"', '[]']) {
      expect(normalisePosTenders(raw)).toEqual(cashOnly);
    }
    expect(CASH_ONLY).toEqual(cashOnly);
  });

  test('an empty object is cash only', () => {
    expect(normalisePosTenders({})).toEqual(cashOnly);
  });

  test('a full block passes through', () => {
    const block: PosTenders = {
      enabled: ['card', 'meal_voucher', 'gift_voucher'],
      issuers: { card_debit: ['Bancontact'], card_credit: ['Visa', 'Mastercard'], meal_voucher: ['Pluxee'], gift_voucher: [] },
    };
    expect(normalisePosTenders(block)).toEqual(block);
  });

  test('drops unknown methods and cash, dedupes, keeps first order', () => {
    expect(normalisePosTenders({ enabled: ['gift_voucher', 'cash', 'bitcoin', 'card', 'gift_voucher', 7, null, 'CARD'] })).toEqual({
      ...cashOnly,
      enabled: ['gift_voucher', 'card'],
    });
  });

  test('trims issuer names, drops blanks and non-strings, dedupes', () => {
    expect(
      normalisePosTenders({
        enabled: ['card'],
        issuers: {
          card_debit: [' Bancontact ', 'Bancontact', '', '   ', 5, null, 'Maestro'],
          card_credit: 'Visa',
          meal_voucher: null,
          unknown_key: ['x'],
        },
      }),
    ).toEqual({
      enabled: ['card'],
      issuers: { card_debit: ['Bancontact', 'Maestro'], card_credit: [], meal_voucher: [], gift_voucher: [] },
    });
  });

  test('a non-array enabled or non-object issuers reads as empty', () => {
    expect(normalisePosTenders({ enabled: 'card', issuers: ['Visa'] })).toEqual(cashOnly);
  });

  test('keeps issuers of a method that is switched off', () => {
    expect(normalisePosTenders({ enabled: [], issuers: { meal_voucher: ['Pluxee'] } })).toEqual({
      enabled: [],
      issuers: { card_debit: [], card_credit: [], meal_voucher: ['Pluxee'], gift_voucher: [] },
    });
  });

  test('accepts the block as JSON text', () => {
    expect(normalisePosTenders('{"enabled":["card"],"issuers":{"card_credit":["Visa"]}}')).toEqual({
      enabled: ['card'],
      issuers: { card_debit: [], card_credit: ['Visa'], meal_voucher: [], gift_voucher: [] },
    });
  });

  test('is idempotent', () => {
    const once = normalisePosTenders({ enabled: ['card', 'card'], issuers: { card_debit: [' A ', 'A'] } });
    expect(normalisePosTenders(once)).toEqual(once);
  });
});
