import type { CardFunding, IssuerInstrument, PosTenders } from './types.ts';

/** Which issuer list a leg is checked against. */
export function issuerInstrument(
  leg: { readonly kind: 'card'; readonly funding: CardFunding } | { readonly kind: 'meal_voucher' | 'gift_voucher' },
): IssuerInstrument {
  if (leg.kind === 'card') return leg.funding === 'debit' ? 'card_debit' : 'card_credit';
  return leg.kind;
}

/** Outcome of rule 6: the issuer to sign (absent = omit the field), or a refused pick. */
export type IssuerResolution = { readonly ok: true; readonly issuer?: string } | { readonly ok: false };

/**
 * Spec 2 tenders rule 6. A pick (trimmed; blank counts as no pick) must match a configured issuer
 * exactly; with no pick, a lone configured issuer is used; none configured, or several and no pick,
 * leaves the issuer out.
 */
export function resolveIssuer(config: PosTenders, instrument: IssuerInstrument, pick: string | null | undefined): IssuerResolution {
  const configured = config.issuers[instrument];
  const wanted = typeof pick === 'string' ? pick.trim() : '';
  if (wanted !== '') return configured.includes(wanted) ? { ok: true, issuer: wanted } : { ok: false };
  const only = configured.length === 1 ? configured[0] : undefined;
  return only === undefined ? { ok: true } : { ok: true, issuer: only };
}
