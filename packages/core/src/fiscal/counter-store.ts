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
    const eventCounter = await reserveCounter(this.tx, this.fdmId, label);
    const totalCounter = await reserveCounter(this.tx, this.fdmId, TOTAL_LABEL);
    return { eventCounter, totalCounter };
  }
}
