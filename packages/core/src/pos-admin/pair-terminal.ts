import { logActivity } from '../activity/log-activity.ts';
import { lockTerminal, requireTerminalFreeOfKiosks, requireTerminalFreeOfRegisters } from '../devices/terminal-bindings.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { findLiveRegisterForUpdate, presentRegister, type RegisterTerminal, type RegisterView, type TerminalProvider } from './register-records.ts';

export interface PairTerminalInput {
  provider: TerminalProvider;
  terminal_id: string;
  label?: string | null;
}

/**
 * `POST /back-office/pos/{locationId}/registers/{registerId}/pair-terminal` (MANAGE_POS_CONFIGURATION):
 * stores `{provider, terminal_id, label, paired_at}` in `terminal`, replacing a previous pairing. A
 * terminal (provider + id) already paired with another live register of the merchant, or bound to a
 * live kiosk (`devices.card_a_reader_id`, `card_b_terminal_id`, `platform_a_device_id`), is 409; a
 * retired register is 409.
 */
export async function pairTerminal(scope: PosAdminScope, locationId: string, id: string, input: PairTerminalInput): Promise<RegisterView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'update');
    await findLiveRegisterForUpdate(tx, locationId, id);
    const terminalId = input.terminal_id.trim();
    // The checks below read every location's registers and the merchant's kiosks, but the lock above is
    // this location's: two bindings of one terminal (two registers at two locations, or a register and a
    // kiosk's `PUT /devices/{id}`) serialise on the terminal itself (a transaction lock).
    await lockTerminal(tx, input.provider, terminalId);
    await requireTerminalFreeOfRegisters(tx, input.provider, terminalId, id);
    await requireTerminalFreeOfKiosks(tx, input.provider, terminalId);
    const terminal: RegisterTerminal = { provider: input.provider, terminal_id: terminalId, label: input.label?.trim() || null, paired_at: scope.now.toISOString() };
    const updated = await tx.updateTable('pos_registers').set({ terminal: JSON.stringify(terminal) }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'paired_terminal', subject: 'pos_register', subjectId: id, properties: { provider: input.provider, terminal_id: terminalId } });
    return updated;
  });
  return presentRegister(row);
}
