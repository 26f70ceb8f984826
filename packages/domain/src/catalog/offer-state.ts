/** Offer states (spec 1 section 3, "Offer"). Pure; refusals documented in docs/decisions.md. */
export const OFFER_STATUSES = ['inactive', 'active', 'archived'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];
export type OfferOperation = 'activate' | 'deactivate' | 'archive' | 'unarchive' | 'edit';
export type OfferRefusalReason = 'offer_archived' | 'offer_already_active' | 'offer_already_inactive' | 'offer_already_archived' | 'offer_not_archived';

export type OfferDecision =
  | { readonly kind: 'accepted'; readonly next: OfferStatus }
  | { readonly kind: 'refused'; readonly reason: OfferRefusalReason; readonly message: string };

export const OFFER_REFUSALS: Readonly<Record<OfferRefusalReason, string>> = {
  offer_archived: 'This offer is archived. Unarchive it first.',
  offer_already_active: 'This offer is already active.',
  offer_already_inactive: 'This offer is already inactive.',
  offer_already_archived: 'This offer is already archived.',
  offer_not_archived: 'This offer is not archived.',
};

const refuse = (reason: OfferRefusalReason): OfferDecision => ({ kind: 'refused', reason, message: OFFER_REFUSALS[reason] });
const accept = (next: OfferStatus): OfferDecision => ({ kind: 'accepted', next });

/** activate: inactive -> active; deactivate: active -> inactive; archive: any live -> archived; unarchive: archived -> inactive. */
export function offerTransition(status: OfferStatus, op: OfferOperation): OfferDecision {
  switch (op) {
    case 'activate':
      if (status === 'archived') return refuse('offer_archived');
      if (status === 'active') return refuse('offer_already_active');
      return accept('active');
    case 'deactivate':
      if (status === 'archived') return refuse('offer_archived');
      if (status === 'inactive') return refuse('offer_already_inactive');
      return accept('inactive');
    case 'archive':
      if (status === 'archived') return refuse('offer_already_archived');
      return accept('archived');
    case 'unarchive':
      if (status !== 'archived') return refuse('offer_not_archived');
      return accept('inactive');
    case 'edit':
      if (status === 'archived') return refuse('offer_archived');
      return accept(status);
  }
}
