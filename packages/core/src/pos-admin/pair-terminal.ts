import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findLiveRegisterForUpdate, lockLocation, presentRegister, TERMINAL_TAKEN, type RegisterTerminal, type RegisterView, type TerminalProvider } from './register-records.ts';

export interface PairTerminalInput {
  provider: TerminalProvider;
  terminal_id: string;
  label?: string | null;
}

/**
 * `POST /back-office/pos/{locationId}/registers/{registerId}/pair-terminal` (MANAGE_POS_CONFIGURATION):
 * stores `{provider, terminal_id, label, paired_at}` in `terminal`, replacing a previous pairing. A
 * terminal (provider + id) already paired with another live register of the merchant is 409; a
 * retired register is 409.
 */
export async function pairTerminal(scope: PosAdminScope, locationId: string, id: string, input: PairTerminalInput): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId);
    await findLiveRegisterForUpdate(tx, locationId, id);
    const terminalId = input.terminal_id.trim();
    // The check below reads every location's registers, but the lock above is this location's: two
    // pairings of one terminal at two locations serialise on the terminal itself (a transaction lock).
    await sql`select pg_advisory_xact_lock(hashtextextended(${`pair-terminal:${input.provider}:${terminalId}`}, 0))`.execute(tx);
    const other = await tx
      .selectFrom('pos_registers')
      .select('id')
      .where('id', '<>', id)
      .where('retired_at', 'is', null)
      .where(sql<string>`terminal->>'provider'`, '=', input.provider)
      .where(sql<string>`terminal->>'terminal_id'`, '=', terminalId)
      .executeTakeFirst();
    if (other) throw errors.conflict(TERMINAL_TAKEN);
    const terminal: RegisterTerminal = { provider: input.provider, terminal_id: terminalId, label: input.label?.trim() || null, paired_at: scope.now.toISOString() };
    const updated = await tx.updateTable('pos_registers').set({ terminal: JSON.stringify(terminal) }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'paired_terminal', subject: 'pos_register', subjectId: id, properties: { provider: input.provider, terminal_id: terminalId } });
    return updated;
  });
  return presentRegister(row);
}
