import { randomUUID } from 'node:crypto';
import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { requireGrantedLocations, type Access } from '../auth/access.ts';
import { errors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';

/**
 * Printer profiles (spec 2 `/printer-profiles`): shared print settings a printer is configured with
 * (`printer_profile_id`). Deleting a profile unbinds its printers.
 */
export interface PrinterProfileSettings {
  paper_width_mm: 58 | 80;
  poll_interval_seconds: number;
  /** Lines printed under every customer receipt. */
  receipt_footer: string[];
  print_kitchen_modifiers: boolean;
}

export const PRINTER_PROFILE_DEFAULTS: Readonly<PrinterProfileSettings> = { paper_width_mm: 80, poll_interval_seconds: 5, receipt_footer: [], print_kitchen_modifiers: true };

export interface PrinterProfileView {
  id: string;
  name: string;
  settings: PrinterProfileSettings;
  printers_count: number;
  created_at: string;
  updated_at: string;
}

export function materialisePrinterSettings(stored: Record<string, unknown> | null | undefined): PrinterProfileSettings {
  const out: PrinterProfileSettings = { ...PRINTER_PROFILE_DEFAULTS, receipt_footer: [...PRINTER_PROFILE_DEFAULTS.receipt_footer] };
  for (const k of Object.keys(PRINTER_PROFILE_DEFAULTS) as (keyof PrinterProfileSettings)[]) {
    const v = stored?.[k];
    if (v !== undefined && typeof v === typeof PRINTER_PROFILE_DEFAULTS[k]) (out as unknown as Record<string, unknown>)[k] = v;
  }
  return out;
}

async function views(tdb: TenantDb, ids: readonly string[]): Promise<PrinterProfileView[]> {
  if (!ids.length) return [];
  const rows = await tdb
    .selectFrom('printer_profiles')
    .select((eb) => ['id', 'name', 'settings', 'created_at', 'updated_at', eb.selectFrom('printers').select((e) => e.fn.countAll<string>().as('n')).whereRef('printers.printer_profile_id', '=', 'printer_profiles.id').where('printers.state', '<>', 'retired').as('printers_count')])
    .where('id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ id: r.id, name: r.name, settings: materialisePrinterSettings(r.settings), printers_count: Number(r.printers_count ?? 0), created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() }] : [];
  });
}

async function find(tdb: TenantDb, id: string) {
  const p = isUuid(id) ? await tdb.selectFrom('printer_profiles').selectAll().where('id', '=', id).executeTakeFirst() : undefined;
  if (!p) throw errors.notFound('printer profile');
  return p;
}

export async function listPrinterProfiles(tdb: TenantDb): Promise<PrinterProfileView[]> {
  const rows = await tdb.selectFrom('printer_profiles').select('id').orderBy('name').orderBy('id').limit(500).execute();
  return views(
    tdb,
    rows.map((r) => r.id),
  );
}

export async function printerProfileOptions(tdb: TenantDb): Promise<{ value: string; label: string }[]> {
  const rows = await tdb.selectFrom('printer_profiles').select(['id', 'name']).orderBy('name').orderBy('id').limit(500).execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}

export async function getPrinterProfile(tdb: TenantDb, id: string): Promise<PrinterProfileView> {
  return (await views(tdb, [(await find(tdb, id)).id]))[0]!;
}

export async function createPrinterProfile(tdb: TenantDb, input: { name: string; settings?: Partial<PrinterProfileSettings> }, now: Date): Promise<PrinterProfileView> {
  const id = randomUUID();
  await tdb.insertInto('printer_profiles').values({ id, name: input.name.trim(), settings: JSON.stringify(materialisePrinterSettings(input.settings ?? {})), created_at: now, updated_at: now }).execute();
  return (await views(tdb, [id]))[0]!;
}

/**
 * 403 `Unauthorized: Insufficient permissions` while a printer bound to the profile (not retired) is at a
 * location outside the caller's grant: the profile drives each printer bound to it (paper, poll, footer),
 * as a device profile drives its devices (`requireProfileWithinGrant`).
 */
async function requirePrintersWithinGrant(tx: TenantTx, access: Access, profileId: string): Promise<void> {
  if (access.allLocations) return;
  const rows = await tx.selectFrom('printers').select('location_id').distinct().where('printer_profile_id', '=', profileId).where('state', '<>', 'retired').execute();
  requireGrantedLocations(access, rows.map((r) => r.location_id));
}

/**
 * Merges the given settings over the current ones. The row is locked (`FOR UPDATE`) for the
 * read-merge-write, so two concurrent updates of different keys both survive.
 */
export async function updatePrinterProfile(tdb: TenantDb, access: Access, id: string, input: { name?: string; settings?: Partial<PrinterProfileSettings> }, now: Date): Promise<PrinterProfileView> {
  if (!isUuid(id)) throw errors.notFound('printer profile');
  await tdb.transaction().execute(async (tx) => {
    const p = await tx.selectFrom('printer_profiles').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
    if (!p) throw errors.notFound('printer profile');
    await requirePrintersWithinGrant(tx, access, p.id);
    const settings = materialisePrinterSettings({ ...(p.settings ?? {}), ...(input.settings ?? {}) });
    await tx
      .updateTable('printer_profiles')
      .set({ ...(input.name !== undefined ? { name: input.name.trim() } : {}), settings: JSON.stringify(settings), updated_at: now })
      .where('id', '=', p.id)
      .execute();
  });
  return (await views(tdb, [id]))[0]!;
}

/** Deletes the profile; its printers are unbound (the foreign key sets null). Answers how many. */
export async function deletePrinterProfile(tdb: TenantDb, access: Access, id: string): Promise<number> {
  const p = await find(tdb, id);
  return withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      // The printers bound to it first, then the profile: the order a configure takes them in (its printer,
      // then the profile it names). The other order deadlocked a configure of a bound printer (a 500).
      await tx.selectFrom('printers').select('id').where('printer_profile_id', '=', p.id).orderBy('id').forUpdate().execute();
      // Then the profile: a printer bound meanwhile waits, then finds the profile gone (its binding checks the grant itself).
      const locked = await tx.selectFrom('printer_profiles').select('id').where('id', '=', p.id).forUpdate().executeTakeFirst();
      // Deleted since it was found (two deletes at once): the 404 a later delete gets.
      if (!locked) throw errors.notFound('printer profile');
      await requirePrintersWithinGrant(tx, access, p.id);
      const r = await tx.updateTable('printers').set({ printer_profile_id: null }).where('printer_profile_id', '=', p.id).executeTakeFirst();
      await tx.deleteFrom('printer_profiles').where('id', '=', p.id).execute();
      return Number(r.numUpdatedRows);
    }),
  );
}
