import { appendSigned, eventLabelOf, journalContent, type JournalEntry, type JournalHead } from '@pos/fiscal';
import { fiscalCommon, requireFiscalIdentity, type FiscalLocation, type FiscalSignDeps, type SignEventInput } from './sign-event.ts';
import { SEQ_LABEL, TOTAL_LABEL, ticketLabel } from './counter-store.ts';
import type { SignedFiscalEvent } from './journal-rows.ts';

// Signing without holding the journal head (in-process signer): the caller read the head, the counters
// and the location in one statement; this signs in the process (no I/O) and says what to write. The
// caller writes it in ONE statement, conditional on the head still being what was signed over
// (`expectedHead`), and signs again over the new head when it moved. The journal, counters and state
// change still commit together, and the head is locked only for that one statement.

/** What was read about the device: its last journal entry and its counter values (absent = 0). */
export interface HeadSnapshot {
  readonly fdmId: string;
  readonly location: FiscalLocation;
  /** The device's last journal entry, null for an empty journal. */
  readonly last: JournalHead | null;
  /** fiscal_counters of the device by label ('seq', 'total', 'ticket:<pos>', event labels). */
  readonly counters: ReadonlyMap<string, number>;
}

/** A signed entry ready to be written over `expectedHead`. */
export interface SignedOverHead {
  readonly signed: SignedFiscalEvent;
  readonly entry: JournalEntry;
  /** The value the 'seq' counter must still hold when the write happens. */
  readonly expectedHead: number;
  /** New absolute counter values (head, ticket, event label, total) to store with the entry. */
  readonly counters: { readonly labels: string[]; readonly values: number[] };
}

/** Signs `input` as the next entry after `snapshot`. Throws 422 without the location's fiscal identity. */
export function signOverHead(deps: FiscalSignDeps, snapshot: HeadSnapshot, input: SignEventInput): SignedOverHead {
  const { location, counters, fdmId } = snapshot;
  requireFiscalIdentity(location);
  const head = counters.get(SEQ_LABEL) ?? 0;
  const lastSeq = snapshot.last?.seq ?? 0;
  if (lastSeq !== head) {
    // Someone removed or wrote journal rows behind this module's back: never sign on top of that.
    deps.log.error('fiscal journal head does not match its counter', { fdm_id: fdmId, last_seq: lastSeq, head });
    throw new Error(`Fiscal journal of ${fdmId} is inconsistent: last entry is seq ${lastSeq}, the head counter says ${head}`);
  }
  const seq = head + 1;
  const ticket = ticketLabel(input.deviceId);
  const posFiscalTicketNo = (counters.get(ticket) ?? 0) + 1;
  const event = input.build(fiscalCommon(deps, location, input, posFiscalTicketNo));
  const label = eventLabelOf(event);
  const eventCounter = (counters.get(label) ?? 0) + 1;
  const totalCounter = (counters.get(TOTAL_LABEL) ?? 0) + 1;
  const result = deps.signers.software(fdmId).signWithCounters(event, { eventCounter, totalCounter });
  const entry = appendSigned(snapshot.last, journalContent(fdmId, event), result, deps.signers.sealKey);
  if (entry.seq !== seq) throw new Error(`Fiscal journal of ${fdmId}: appended seq ${entry.seq}, head ${head}`);
  return {
    signed: { journal_id: Bun.randomUUIDv7(), fdm_id: fdmId, seq, subject: input.subject, event, result },
    entry,
    expectedHead: head,
    counters: { labels: [SEQ_LABEL, ticket, label, TOTAL_LABEL], values: [seq, posFiscalTicketNo, eventCounter, totalCounter] },
  };
}
