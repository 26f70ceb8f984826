import type { IssuerInstrument, PosTenders, TenderMethod } from './types.ts';

type NonCashMethod = Exclude<TenderMethod, 'cash'>;

/** Methods a location can switch on; cash is always on and is never listed. */
export const CONFIGURABLE_METHODS: readonly NonCashMethod[] = ['card', 'meal_voucher', 'gift_voucher'];

/** The issuer lists of `pos_tenders`, in the order they are served. */
export const ISSUER_INSTRUMENTS: readonly IssuerInstrument[] = ['card_debit', 'card_credit', 'meal_voucher', 'gift_voucher'];

/** An unconfigured location: cash only, no issuers. */
export const CASH_ONLY: PosTenders = Object.freeze({
  enabled: Object.freeze([]),
  issuers: Object.freeze({
    card_debit: Object.freeze([]),
    card_credit: Object.freeze([]),
    meal_voucher: Object.freeze([]),
    gift_voucher: Object.freeze([]),
  }),
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isConfigurable(value: unknown): value is NonCashMethod {
  return CONFIGURABLE_METHODS.some((method) => method === value);
}

function issuerNames(raw: unknown): string[] {
  if (!Array.isArray(raw)) return [];
  const names = raw.filter((name): name is string => typeof name === 'string').map((name) => name.trim());
  return [...new Set(names.filter((name) => name !== ''))];
}

/**
 * Normalises a stored or submitted `pos_tenders` block (spec 2, "Location tender configuration").
 * Anything that is not an object (absent, null, broken JSON text) means cash only. Unknown and
 * repeated methods are dropped (first order kept), as is `cash`, which is always enabled; issuer
 * names are trimmed, blanks and non-strings dropped, repeats removed; a missing or non-array list
 * is empty. Issuers of a disabled method are kept, so switching it back on restores them.
 */
export function normalisePosTenders(raw: unknown): PosTenders {
  let value = raw;
  // jsonb can come back as text from some drivers; broken text is treated as unconfigured.
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return CASH_ONLY;
    }
  }
  if (!isRecord(value)) return CASH_ONLY;
  const enabled = Array.isArray(value.enabled) ? [...new Set(value.enabled.filter(isConfigurable))] : [];
  const issuers = isRecord(value.issuers) ? value.issuers : {};
  return {
    enabled,
    issuers: {
      card_debit: issuerNames(issuers.card_debit),
      card_credit: issuerNames(issuers.card_credit),
      meal_voucher: issuerNames(issuers.meal_voucher),
      gift_voucher: issuerNames(issuers.gift_voucher),
    },
  };
}
