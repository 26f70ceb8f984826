import { describe, expect, test } from 'bun:test';
import { OFFER_STATUSES, offerTransition, type OfferOperation, type OfferStatus } from './offer-state.ts';

const EXPECTED: Record<OfferStatus, Record<OfferOperation, string>> = {
  inactive: { activate: 'active', deactivate: 'offer_already_inactive', archive: 'archived', unarchive: 'offer_not_archived', edit: 'inactive' },
  active: { activate: 'offer_already_active', deactivate: 'inactive', archive: 'archived', unarchive: 'offer_not_archived', edit: 'active' },
  archived: { activate: 'offer_archived', deactivate: 'offer_archived', archive: 'offer_already_archived', unarchive: 'inactive', edit: 'offer_archived' },
};

describe('offerTransition', () => {
  for (const s of OFFER_STATUSES) {
    for (const op of Object.keys(EXPECTED[s]) as OfferOperation[]) {
      test(`${s} + ${op}`, () => {
        const d = offerTransition(s, op);
        expect<string>(d.kind === 'accepted' ? d.next : d.reason).toBe(EXPECTED[s][op]);
      });
    }
  }
  test('a refusal carries its message', () => {
    expect(offerTransition('archived', 'activate')).toEqual({ kind: 'refused', reason: 'offer_archived', message: 'This offer is archived. Unarchive it first.' });
  });
});
