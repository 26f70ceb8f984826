import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import { requireNotBeingSubscribed } from './device-subscription-claims.ts';
import { lockLocation } from '../settings/locations.ts';
import { unbindDeviceRegisters } from '../pos-admin/register-records.ts';
import { deviceView, findDevice, findLocation, findProfile, inMerchantTx, lockProfile, requireLocationAccess, requireProfileFits, type BackofficeScope, type DeviceView } from './device-records.ts';
import { KIOSK_TERMINAL_FIELDS, lockTerminal, requireCardAReaderExists, requireReaderFreeElsewhere, requireTerminalFreeOfKiosks, requireTerminalFreeOfRegisters, terminalIdErrors, terminalLockOrder, type KioskTerminalField } from './terminal-bindings.ts';

export interface UpdateDeviceInput {
  name?: string;
  location_id?: string;
  device_profile_id?: string | null;
  /** Kiosks only: the card-b terminal the kiosk's payments start on; null unbinds. */
  card_b_terminal_id?: string | null;
  /** Kiosks only: the card-a reader (`tmr_…`) the kiosk's payments start on; null unbinds. */
  card_a_reader_id?: string | null;
}

/** The providers the update may ask: card-a, to check a reader exists (null: not configured, the id's form only). */
export interface UpdateDeviceDeps {
  cardA: CardAClient | null;
}

/**
 * `PUT /back-office/devices/{id}`: renames, moves (to a location in the grant), rebinds the profile or,
 * for a kiosk, binds or unbinds its payment terminals (`card_b_terminal_id`, `card_a_reader_id`).
 * The type of a device never changes (its tokens carry it). A profile is bound as `assignDeviceProfile`
 * binds it (its row locked, its type read again). A move ends the staff sessions opened on the device
 * (their tokens answer 401; work-outs queued, as pin-logout does). A device a subscribe request is
 * billing at card-a right now is not moved (409): it is billed at the location it was claimed at.
 *
 * Terminals (terminal-bindings.ts): only a kiosk carries them (422 on the field otherwise); a terminal
 * another live kiosk or a live register of the merchant holds is 409, checked under the terminal's lock
 * that `pair-terminal` takes too; a new card-a reader is asked for at card-a when card-a is configured
 * (422 on the field when card-a has none, 503 when card-a cannot answer), before any write.
 */
export async function updateDevice(scope: BackofficeScope, deviceId: string, input: UpdateDeviceInput, deps: UpdateDeviceDeps = { cardA: null }): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'EDIT_DEVICES');
  type Changes = { name?: string; location_id?: string; device_profile_id?: string | null; station_id?: null } & Partial<Record<KioskTerminalField, string | null>>;
  const changes: Changes = {};
  const terminals = kioskTerminalChanges(d.type, input);
  if (input.name !== undefined) changes.name = input.name.trim();
  // Compared as stored (lower case): the same location spelled in upper case is no move.
  if (input.location_id !== undefined && input.location_id.toLowerCase() !== d.location_id) {
    const loc = await findLocation(scope.tdb, input.location_id);
    requireLocationAccess(scope.access, loc.id, 'EDIT_DEVICES');
    changes.location_id = loc.id;
    // A KDS device shows a station of its own location only: the move unbinds the old location's station.
    changes.station_id = null;
  }
  if (input.device_profile_id !== undefined) {
    if (input.device_profile_id !== null) requireProfileFits(await findProfile(scope.tdb, input.device_profile_id), d.type);
    changes.device_profile_id = input.device_profile_id;
  }
  for (const t of terminals) changes[t.field] = t.terminalId;
  // A reader newly bound is asked for at card-a outside the transaction (no provider call holds locks).
  const newReader = terminals.find((t) => t.field === 'card_a_reader_id' && t.terminalId !== null && t.terminalId !== d.card_a_reader_id);
  if (newReader?.terminalId && deps.cardA) await requireCardAReaderExists(deps.cardA, newReader.terminalId);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    // As `assignDeviceProfile`: the profile's type read again under a shared lock, so a racing type change cannot slip in.
    if (changes.device_profile_id) requireProfileFits(await lockProfile(tenant, changes.device_profile_id, 'share'), d.type);
    if (changes.location_id !== undefined) {
      // The new location read again under a lock: one deleted meanwhile is the 404, not a foreign-key 500.
      await lockLocation(tenant, changes.location_id, 'share');
      await requireNotBeingSubscribed(tenant, d.id, scope.now);
    }
    // Terminal locks last (pair-terminal takes its location's row lock first, then the terminal's), in
    // one order: a kiosk and a register, or two kiosks, binding one terminal run one after the other.
    for (const t of terminalLockOrder(terminals.flatMap((x) => (x.terminalId === null ? [] : [{ ...x, terminalId: x.terminalId }])))) {
      await lockTerminal(tenant, t.provider, t.terminalId);
      await requireTerminalFreeOfKiosks(tenant, t.provider, t.terminalId, d.id);
      await requireTerminalFreeOfRegisters(tenant, t.provider, t.terminalId);
      if (t.provider === 'card-a') await requireReaderFreeElsewhere(central, t.terminalId, scope.merchant.id);
    }
    if (Object.keys(changes).length) {
      await tenant.updateTable('devices').set(changes).where('id', '=', d.id).execute();
      // A staff session belongs to the location it was opened at (its work-in was signed there): a move ends
      // it, and a register of the old location lets the device go.
      if (changes.location_id !== undefined) {
        await endLiveStaffSessions(tenant, scope.merchant.tenant_database, { deviceId: d.id }, scope.now);
        await unbindDeviceRegisters(tenant, d.id);
      }
      await logActivity(tenant, { userId: scope.userId, action: 'updated', subject: 'device', subjectId: d.id, properties: { changes } });
    }
    return deviceView(central, tenant, d.id, scope.access);
  });
}

/** The terminal fields the input sends, trimmed; 422 on each when the device is not a kiosk or the id has the wrong form. */
function kioskTerminalChanges(type: string, input: UpdateDeviceInput) {
  const out: { field: KioskTerminalField; provider: (typeof KIOSK_TERMINAL_FIELDS)[KioskTerminalField]; terminalId: string | null }[] = [];
  const bad: Record<string, string[]> = {};
  for (const [field, provider] of Object.entries(KIOSK_TERMINAL_FIELDS) as [KioskTerminalField, (typeof KIOSK_TERMINAL_FIELDS)[KioskTerminalField]][]) {
    const raw = input[field];
    if (raw === undefined) continue;
    const terminalId = raw === null ? null : raw.trim();
    const wrong = type !== 'kiosk' ? `Only a kiosk takes a ${provider} ${field === 'card_a_reader_id' ? 'reader' : 'terminal'}: this device is not a kiosk.` : terminalId === null ? null : terminalIdErrors(field, terminalId);
    if (wrong) bad[field] = [wrong];
    else out.push({ field, provider, terminalId });
  }
  if (Object.keys(bad).length) throw errors.validation(bad);
  return out;
}
