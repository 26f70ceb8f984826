import type { CounterStore, EventLabel, FdmCounters } from '@pos/fiscal';
import type { TenantDb, TenantTx } from '@pos/db';

// Rows of `fiscal_counters` per fiscal device (fdm_id):
// - 'N', 'S', 'F', 'R', 'T' and 'total': the in-process signing module's event and total counters.
// - 'seq': the journal head (last seq issued). Reserving it locks the row until commit, which
//   serialises every signer of that device; it also tells the verifier where the journal must end.
// - 'ticket:<posId>': the register's posFiscalTicketNo on that device.
// All are reserved with an upsert in the caller's transaction, so a rollback gives the numbers back.

/** Label of the journal head counter. */
export const SEQ_LABEL = 'seq';
/** Label of the total counter of the in-process module. */
export const TOTAL_LABEL = 'total';
/** Label of a register's ticket counter. */
export const ticketLabel = (posId: string): string => `ticket:${posId}`;

/**
 * Increments the counter (creating it at 1) and returns the new value:
 * `INSERT ... ON CONFLICT (fdm_id, label) DO UPDATE SET value = value + 1 RETURNING value`.
 * The row stays locked until the transaction ends.
 */
export async function reserveCounter(tx: TenantDb, fdmId: string, label: string): Promise<number> {
  const row = await tx
    .insertInto('fiscal_counters')
    .values({ fdm_id: fdmId, label, value: 1 })
    .onConflict((oc) => oc.columns(['fdm_id', 'label']).doUpdateSet((eb) => ({ value: eb('fiscal_counters.value', '+', 1) })))
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Reserves several counters of one device in a single round trip (one multi-row upsert). Rows are
 * locked in the order given, so every caller names the 'seq' head first and signers never deadlock.
 */
export async function reserveCounters<const L extends readonly string[]>(tx: TenantDb, fdmId: string, labels: L): Promise<{ [K in keyof L]: number }> {
  const rows = await tx
    .insertInto('fiscal_counters')
    .values(labels.map((label) => ({ fdm_id: fdmId, label, value: 1 })))
    .onConflict((oc) => oc.columns(['fdm_id', 'label']).doUpdateSet((eb) => ({ value: eb('fiscal_counters.value', '+', 1) })))
    .returning(['label', 'value'])
    .execute();
  const byLabel = new Map(rows.map((r) => [r.label, Number(r.value)]));
  return labels.map((l) => {
    const v = byLabel.get(l);
    if (v === undefined) throw new Error(`counter ${l} was not reserved`);
    return v;
  }) as { [K in keyof L]: number };
}

/** Current value of a counter (0 when it was never reserved). */
export async function counterValue(tdb: TenantDb, fdmId: string, label: string): Promise<number> {
  const row = await tdb.selectFrom('fiscal_counters').select('value').where('fdm_id', '=', fdmId).where('label', '=', label).executeTakeFirst();
  return row ? Number(row.value) : 0;
}

/**
 * The in-process module's counters in the database, bound to one transaction: each `next` reserves
 * the label's counter and the total counter.
 */
export class DbCounterStore implements CounterStore {
  constructor(
    private readonly tx: TenantTx,
    private readonly fdmId: string,
  ) {}

  async next(label: EventLabel): Promise<FdmCounters> {
    const [eventCounter, totalCounter] = await reserveCounters(this.tx, this.fdmId, [label, TOTAL_LABEL]);
    return { eventCounter, totalCounter };
  }
}
