// Pure: whether a sale's two payment records agree (spec 2 refund rule 2). No I/O.

/** Tender methods recorded at the till (spec 2 refund rule 2: cash, keyed card, vouchers). */
export const TILL_RECORDED_METHODS = ['cash', 'card', 'meal_voucher', 'gift_voucher'] as const;
const TILL_RECORDED: ReadonlySet<string> = new Set(TILL_RECORDED_METHODS);

/** One payment in the form both records are compared in. */
export interface ComparableLeg {
  readonly method: string;
  readonly funding: string | null;
  readonly amount: number;
  readonly issuer: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A whole number of cents from a number or numeric text, accepting whole-cent decimals
 * (`3200`, `3200.0`, `"3200.00"` are all 3200); anything else (`3200.5`, `"32,00"`, null) is null.
 */
export function wholeCents(v: unknown): number | null {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : null;
  if (typeof v === 'string' && /^\s*-?\d+(\.0+)?\s*$/.test(v)) {
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

const textOrNull = (v: unknown): string | null | undefined => (v === undefined || v === null ? null : typeof v === 'string' ? v : undefined);

/** A leg of either record (`kind` in the frozen tender, `method` in the snapshot), or null when unreadable. */
function comparable(raw: unknown, methodKey: 'kind' | 'method'): ComparableLeg | null {
  if (!isObject(raw)) return null;
  const method = raw[methodKey];
  const amount = wholeCents(raw.amount);
  const funding = textOrNull(raw.funding);
  const issuer = textOrNull(raw.issuer);
  if (typeof method !== 'string' || amount === null || funding === undefined || issuer === undefined) return null;
  // Funding is only meaningful on a card; elsewhere it is ignored.
  return { method, funding: method === 'card' ? funding : null, amount, issuer };
}

const parseMaybe = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
};

/** The frozen tender's legs (`{legs:[{kind, amount, funding?, issuer?, ...}]}`, object or JSON text), or null. */
export function frozenTenderLegs(tender: unknown): ComparableLeg[] | null {
  const t = parseMaybe(tender);
  if (!isObject(t) || !Array.isArray(t.legs)) return null;
  const legs = t.legs.map((l) => comparable(l, 'kind'));
  return legs.every((l): l is ComparableLeg => l !== null) ? legs : null;
}

/** The payment snapshot's legs (`[{method, amount, funding?, issuer?}]`, array or JSON text), or null. */
export function snapshotLegs(snapshot: unknown): ComparableLeg[] | null {
  const s = parseMaybe(snapshot);
  if (!Array.isArray(s)) return null;
  const legs = s.map((l) => comparable(l, 'method'));
  return legs.every((l): l is ComparableLeg => l !== null) ? legs : null;
}

const keyOf = (l: ComparableLeg) => JSON.stringify([l.method, l.funding, l.amount, l.issuer]);

/**
 * True when the order's frozen tender and the transaction's payment snapshot record the same
 * payments: the same multiset of (method, card funding, amount, issuer), ignoring the order the
 * payments were taken in, the order of keys, and whole-cent decimals (3200 and 3200.0 agree).
 * Keys other than those four (cash `tendered`, `change`, `rounding`) are not compared. Either record
 * unreadable, a leg without a method or with a non-whole amount: false (they cannot be shown to agree).
 */
export function tendersAgree(frozenTender: unknown, paymentSnapshot: unknown): boolean {
  const a = frozenTenderLegs(frozenTender);
  const b = snapshotLegs(paymentSnapshot);
  if (a === null || b === null || a.length !== b.length) return false;
  const left = a.map(keyOf).sort();
  const right = b.map(keyOf).sort();
  return left.every((k, i) => k === right[i]);
}

/** True when every payment of the snapshot is one the till records (cash, keyed card, vouchers). */
export function allRecordedAtTill(paymentSnapshot: unknown): boolean {
  const legs = snapshotLegs(paymentSnapshot);
  return legs !== null && legs.every((l) => TILL_RECORDED.has(l.method));
}
