import type { SignedFiscalEvent } from './journal-rows.ts';

/** The signature block stored on a signed register record (`fiscal` jsonb) and shown to the register. */
export interface StoredSignature {
  readonly short_signature?: string;
  readonly digital_signature: string;
  readonly verification_url?: string;
  readonly fdm_id: string;
  readonly journal_id: string;
  readonly journal_seq: number;
  readonly fdm_ref: unknown;
  readonly pos_fiscal_ticket_no: number;
  readonly booking_date: string;
}

export function storedSignature(signed: SignedFiscalEvent): StoredSignature {
  const r = signed.result;
  return {
    ...(r.shortSignature !== undefined ? { short_signature: r.shortSignature } : {}),
    digital_signature: r.digitalSignature,
    ...(r.verificationUrl !== undefined ? { verification_url: r.verificationUrl } : {}),
    fdm_id: signed.fdm_id,
    journal_id: signed.journal_id,
    journal_seq: signed.seq,
    fdm_ref: r.fdmRef,
    pos_fiscal_ticket_no: signed.event.posFiscalTicketNo,
    booking_date: signed.event.bookingDate,
  };
}
