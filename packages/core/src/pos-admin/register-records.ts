import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { iso, isoOrNull, notFound } from './pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Registers (`pos_registers`): a named till point of a location, optionally bound to one POS device,
 * one drawer and one paired card terminal. Registers are retired, never deleted (tills and reports
 * may point at them).
 */

export type RegisterRow = Selectable<TenantTables['pos_registers']>;

/** Terminal providers a register can be paired with: the card words of spec 1 that run terminals. */
export const TERMINAL_PROVIDERS = ['card-a', 'card-b', 'platform-a'] as const;
export type TerminalProvider = (typeof TERMINAL_PROVIDERS)[number];

/** The paired terminal, stored in `pos_registers.terminal`. */
export interface RegisterTerminal {
  provider: TerminalProvider;
  terminal_id: string;
  label: string | null;
  paired_at: string;
}

export interface RegisterView {
  id: string;
  location_id: string;
  name: string;
  device_id: string | null;
  drawer_id: string | null;
  terminal: RegisterTerminal | null;
  retired_at: string | null;
  created_at: string;
}

export const REGISTER_RETIRED = 'This register is retired.';
export const DEVICE_TAKEN = 'This device is already assigned to another register.';
export const DEVICE_INVALID = 'The selected device is not a register device of this location.';
export const DRAWER_INVALID = 'The selected drawer is not a live drawer of this location.';
export const TERMINAL_TAKEN = 'This terminal is already paired with another register.';

function terminalOf(raw: unknown): RegisterTerminal | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const t = raw as Record<string, unknown>;
  return {
    provider: t.provider as TerminalProvider,
    terminal_id: String(t.terminal_id ?? ''),
    label: typeof t.label === 'string' ? t.label : null,
    paired_at: typeof t.paired_at === 'string' ? t.paired_at : '',
  };
}

export function presentRegister(r: RegisterRow): RegisterView {
  return {
    id: r.id,
    location_id: r.location_id,
    name: r.name,
    device_id: r.device_id,
    drawer_id: r.drawer_id,
    terminal: terminalOf(r.terminal),
    retired_at: isoOrNull(r.retired_at),
    created_at: iso(r.created_at),
  };
}

/** A register of the location (retired or not), or 404: another location's or merchant's id is not found. */
export async function findRegister(tdb: TenantDb | TenantTx, locationId: string, id: string, opts: { lock?: boolean } = {}): Promise<RegisterRow> {
  if (!isUuid(id)) throw notFound('register');
  let q = tdb.selectFrom('pos_registers').selectAll().where('id', '=', id).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('register');
  return row;
}

/** A live register of the location, locked, or 404 / 409 when it is retired. */
export async function findLiveRegisterForUpdate(tx: TenantTx, locationId: string, id: string): Promise<RegisterRow> {
  const row = await findRegister(tx, locationId, id, { lock: true });
  if (row.retired_at !== null) throw errors.conflict(REGISTER_RETIRED);
  return row;
}

/**
 * 422 unless `deviceId` is a live POS device of the location that no other live register holds.
 * Registers of the location are serialised on the location row by the caller's lock.
 */
export async function requireAssignableDevice(tx: TenantTx, locationId: string, deviceId: string, exceptRegisterId?: string): Promise<void> {
  const device = await tx
    .selectFrom('devices')
    .select('id')
    .where('id', '=', deviceId)
    .where('location_id', '=', locationId)
    .where('type', '=', 'pos')
    .where('deleted_at', 'is', null)
    // Share-locked: a move or delete of the device in flight commits first (and is seen), or waits for
    // this binding and then unbinds it (`unbindDeviceRegisters`).
    .forShare()
    .executeTakeFirst();
  if (!device) throw errors.field('device_id', DEVICE_INVALID);
  let q = tx.selectFrom('pos_registers').select('id').where('device_id', '=', deviceId).where('retired_at', 'is', null);
  if (exceptRegisterId) q = q.where('id', '<>', exceptRegisterId);
  if (await q.executeTakeFirst()) throw errors.field('device_id', DEVICE_TAKEN);
}

/** 422 unless `drawerId` is a live drawer of the location. */
export async function requireLiveDrawer(tx: TenantTx, locationId: string, drawerId: string): Promise<void> {
  // Share-locked: a retire (which locks the drawer, then unbinds the live registers) either waits for
  // this binding and unbinds it, or retires first and the drawer is not read here.
  const drawer = await tx.selectFrom('drawers').select('id').where('id', '=', drawerId).where('location_id', '=', locationId).where('retired_at', 'is', null).forShare().executeTakeFirst();
  if (!drawer) throw errors.field('drawer_id', DRAWER_INVALID);
}

/**
 * A POS device moved to another location or deleted leaves the live registers that held it (a register
 * holds a live POS device of its own location): before, the old location's register went on listing
 * it, and the device could not be bound at its new location (422 `device_id` taken). Answers how many.
 */
export async function unbindDeviceRegisters(tx: TenantDb, deviceId: string): Promise<number> {
  const r = await tx.updateTable('pos_registers').set({ device_id: null }).where('device_id', '=', deviceId).where('retired_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows);
}
