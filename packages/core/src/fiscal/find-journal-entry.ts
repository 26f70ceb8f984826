import type { TenantDb } from '@pos/db';
import type { FiscalSubject } from './journal-rows.ts';

/** Where one journal entry stands (what a caller retrying an in-progress operation needs). */
export interface JournalEntryState {
  readonly journal_id: string;
  readonly fdm_id: string;
  readonly seq: number;
  readonly status: 'pending' | 'signed' | 'failed';
  readonly created_at: Date;
}

/**
 * The latest journal entry recorded for `subject` (e.g. the order a 'SETTLING' settle was for), or
 * null. With a pending one, `FiscalService.completePending(tdb, journal_id)` retries it.
 */
export async function findJournalEntry(tdb: TenantDb, subject: FiscalSubject): Promise<JournalEntryState | null> {
  const row = await tdb
    .selectFrom('fiscal_journal')
    .select(['id', 'fdm_id', 'seq', 'status', 'created_at'])
    .where('subject_type', '=', subject.type)
    .where('subject_id', '=', subject.id)
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { journal_id: row.id, fdm_id: row.fdm_id, seq: Number(row.seq), status: row.status, created_at: row.created_at } : null;
}
