import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { CentralDb, TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { renderEpos } from '@pos/domain/printing/render';
import { printJobIdOf } from '@pos/domain/printing/printer-rules';
import { inMerchantTx } from '../devices/device-records.ts';
import { mintPrinterToken, revokePrinterToken } from './printer-tokens.ts';
import { enqueuePrintJob } from './print-jobs.ts';
import { printerSettings } from './printer-settings.ts';
import { printedDate } from './print-dispatch.ts';
import { findPrinter, toViews, type PrinterRow, type PrinterView } from './printer-records.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Printer configuration and pairing (issue 15 points 2-4), shared by the register's operator and mint
 * routes and the back office: the caller resolves and authorises, these do the work.
 */

export interface PrinterScope {
  db: CentralDb;
  tdb: TenantDb;
  merchant: { id: string; tenant_database: string };
  now: Date;
  /** Who acted (`staff:<id>`, `user:<id>`), kept on the pairing session. */
  actor: string;
}

/** How long the operator has to write the settings into the printer and see it poll. */
export const PAIRING_SESSION_MINUTES = 15;

export interface ConfigureInput {
  name: string;
  role?: 'receipt' | 'kitchen';
  station_id?: string | null;
  paper_width_mm?: 58 | 80;
  printer_profile_id?: string | null;
  poll_interval_seconds?: number;
}

const view = async (s: PrinterScope, id: string): Promise<PrinterView> => {
  const row = await s.tdb.selectFrom('printers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  return (await toViews(s.tdb, [row], s.now))[0]!;
};

/**
 * The printer row locked for this transaction (`FOR UPDATE`), re-read so a retire, pairing, rotation
 * or configure that ran since the caller's `findPrinter` is seen; a retired printer is 404 here too.
 * Every write of a printer's state or token takes this lock first (one order: no deadlock).
 */
async function lockLivePrinter(tenant: TenantDb | TenantTx, id: string): Promise<PrinterRow> {
  const row = await tenant.selectFrom('printers').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  if (!row || row.state === 'retired') throw errors.notFound('printer');
  return row;
}

/** Writes the configuration; an unconfigured printer becomes configured (pairing comes next). */
export async function configurePrinter(s: PrinterScope, found: PrinterRow, input: ConfigureInput): Promise<PrinterView> {
  await inMerchantTx(s.db, s.merchant.tenant_database, async ({ tenant }) => {
    const printer = await lockLivePrinter(tenant, found.id);
    const role = input.role ?? printer.role;
    const stationId = input.station_id === undefined ? printer.station_id : input.station_id;
    // The station and the profile are key-share locked as they are checked: one being deleted is waited
    // for and then found gone (422), instead of the foreign key failing at the update (500); one deleted
    // after waits for this configure (a station delete then sees its kitchen printer: 409).
    if (stationId !== null) {
      const st = isUuid(stationId) ? await tenant.selectFrom('kitchen_stations').select('id').where('id', '=', stationId).where('location_id', '=', printer.location_id).forKeyShare().executeTakeFirst() : undefined;
      if (!st) throw errors.field('station_id', 'The selected station id is invalid.');
    }
    if (role === 'kitchen' && stationId === null) throw errors.field('station_id', 'A kitchen printer needs a station.');
    const profileId = input.printer_profile_id === undefined ? printer.printer_profile_id : input.printer_profile_id;
    if (profileId !== null) {
      const p = isUuid(profileId) ? await tenant.selectFrom('printer_profiles').select('id').where('id', '=', profileId).forKeyShare().executeTakeFirst() : undefined;
      if (!p) throw errors.field('printer_profile_id', 'The selected printer profile id is invalid.');
    }
    await tenant
      .updateTable('printers')
      .set({
        name: input.name,
        role,
        station_id: role === 'kitchen' ? stationId : null,
        printer_profile_id: profileId,
        paper_width_mm: input.paper_width_mm ?? printer.paper_width_mm,
        poll_interval_seconds: input.poll_interval_seconds ?? printer.poll_interval_seconds,
        state: printer.state === 'unconfigured' ? 'configured' : printer.state,
        updated_at: s.now,
      })
      .where('id', '=', printer.id)
      .execute();
  });
  return view(s, found.id);
}

export type PairingState = 'awaiting_write' | 'awaiting_first_poll' | 'paired' | 'expired';
export interface PairingSessionView {
  id: string;
  printer_id: string;
  state: PairingState;
  expires_at: string;
  written_at: string | null;
  paired_at: string | null;
  created_at: string;
}

/**
 * A session is paired once the printer has polled with the token minted for it, expired when that has
 * not happened in time. A poll after the session began is not proof enough: a poll with the old token
 * resolved a moment before the mint committed is stamped after it. The printer's state is: only a poll
 * with its current token makes it `paired` (minting makes it `configured`).
 */
function sessionView(row: Selectable<TenantTables['printer_pairing_sessions']>, printer: { last_poll_at: Date | null; state: string }, now: Date): PairingSessionView {
  const pairedAt = row.paired_at ?? (printer.state === 'paired' && printer.last_poll_at && printer.last_poll_at >= row.created_at ? printer.last_poll_at : null);
  const state: PairingState = pairedAt ? 'paired' : row.expires_at <= now ? 'expired' : row.state === 'awaiting_first_poll' ? 'awaiting_first_poll' : 'awaiting_write';
  return {
    id: row.id,
    printer_id: row.printer_id,
    state,
    expires_at: row.expires_at.toISOString(),
    written_at: row.written_at?.toISOString() ?? null,
    paired_at: pairedAt?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

const requireConfigured = (p: PrinterRow) => {
  if (p.state === 'unconfigured') throw errors.conflict('Configure the printer before pairing it.', { reason: 'printer_unconfigured' });
};

/**
 * Starts pairing: a fresh token (shown once, in this answer only) replaces any older one, and a
 * session tracks the write and the printer's first poll with it.
 */
export async function startPairing(s: PrinterScope, found: PrinterRow, pollUrl: string): Promise<{ pairing_session: PairingSessionView; printer_token: string; poll_url: string; poll_interval_seconds: number }> {
  requireConfigured(found);
  const expires = new Date(s.now.getTime() + PAIRING_SESSION_MINUTES * 60_000);
  const id = randomUUID();
  let printer = found;
  const token = await inMerchantTx(s.db, s.merchant.tenant_database, async ({ central, tenant }) => {
    printer = await lockLivePrinter(tenant, found.id);
    requireConfigured(printer);
    await tenant.updateTable('printer_pairing_sessions').set({ state: 'superseded' }).where('printer_id', '=', printer.id).where('state', 'in', ['awaiting_write', 'awaiting_first_poll']).execute();
    await tenant.insertInto('printer_pairing_sessions').values({ id, printer_id: printer.id, state: 'awaiting_write', started_by: s.actor, expires_at: expires, created_at: s.now }).execute();
    await tenant.updateTable('printers').set({ state: 'configured', token_issued_at: s.now, updated_at: s.now }).where('id', '=', printer.id).execute();
    return mintPrinterToken(central, { merchant_id: s.merchant.id, tenant_database: s.merchant.tenant_database, printer_id: printer.id });
  });
  const row = await s.tdb.selectFrom('printer_pairing_sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const { poll_interval_seconds } = await printerSettings(s.tdb, printer);
  return { pairing_session: sessionView(row, { last_poll_at: null, state: 'configured' }, s.now), printer_token: token, poll_url: pollUrl, poll_interval_seconds };
}

async function latestSession(s: PrinterScope, printer: PrinterRow) {
  const row = await s.tdb.selectFrom('printer_pairing_sessions').selectAll().where('printer_id', '=', printer.id).where('state', '<>', 'superseded').orderBy('created_at', 'desc').orderBy('id').limit(1).executeTakeFirst();
  if (!row) throw errors.notFound('pairing session');
  return row;
}

export async function getPairing(s: PrinterScope, printer: PrinterRow): Promise<{ pairing_session: PairingSessionView }> {
  return { pairing_session: sessionView(await latestSession(s, printer), printer, s.now) };
}

/** The operator confirms the settings were written into the printer; now its first poll is awaited. */
export async function confirmPairingWrite(s: PrinterScope, printer: PrinterRow): Promise<{ pairing_session: PairingSessionView }> {
  const row = await latestSession(s, printer);
  const current = sessionView(row, printer, s.now);
  if (current.state === 'expired') throw errors.conflict('The pairing session has expired; start a new one.', { reason: 'pairing_expired' });
  if (current.state === 'awaiting_write') {
    await s.tdb.updateTable('printer_pairing_sessions').set({ state: 'awaiting_first_poll', written_at: s.now }).where('id', '=', row.id).execute();
  }
  const fresh = await s.tdb.selectFrom('printer_pairing_sessions').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  return { pairing_session: sessionView(fresh, printer, s.now) };
}

/** Replaces the token: the old one fails from this moment; the printer must be given the new one. */
export async function rotatePrinterToken(s: PrinterScope, found: PrinterRow): Promise<{ printer_token: string; printer: PrinterView }> {
  const token = await inMerchantTx(s.db, s.merchant.tenant_database, async ({ central, tenant }) => {
    const printer = await lockLivePrinter(tenant, found.id);
    requireConfigured(printer);
    if (printer.token_issued_at === null) throw errors.conflict('This printer has no token yet: pair it first.', { reason: 'printer_not_paired' });
    await tenant.updateTable('printers').set({ state: 'configured', token_issued_at: s.now, updated_at: s.now }).where('id', '=', printer.id).execute();
    return mintPrinterToken(central, { merchant_id: s.merchant.id, tenant_database: s.merchant.tenant_database, printer_id: printer.id });
  });
  return { printer_token: token, printer: await view(s, found.id) };
}

/**
 * Retires the printer: its token stops working, it is no longer paired (`token_issued_at` cleared, so
 * seen again it must be configured and paired anew), and its waiting jobs are cancelled.
 */
export async function retirePrinter(s: PrinterScope, found: PrinterRow): Promise<{ status: 'success'; cancelled_jobs: number }> {
  const cancelled = await inMerchantTx(s.db, s.merchant.tenant_database, async ({ central, tenant }) => {
    const printer = await lockLivePrinter(tenant, found.id);
    await revokePrinterToken(central, s.merchant.id, printer.id);
    await tenant.updateTable('printers').set({ state: 'retired', retired_at: s.now, token_issued_at: null, updated_at: s.now }).where('id', '=', printer.id).execute();
    // Its pairings end with its token: seen again, the printer has no session until a new pairing (before,
    // the old one still answered `paired` for a printer back to unconfigured, without a token).
    await tenant.updateTable('printer_pairing_sessions').set({ state: 'superseded' }).where('printer_id', '=', printer.id).where('state', '<>', 'superseded').execute();
    const r = await tenant.updateTable('print_jobs').set({ state: 'cancelled', finished_at: s.now, lease_until: null }).where('printer_id', '=', printer.id).where('state', 'in', ['queued', 'leased']).executeTakeFirst();
    return Number(r.numUpdatedRows);
  });
  return { status: 'success', cancelled_jobs: cancelled };
}

/**
 * Queues a test print, dated now in the printer's location's time zone; it prints once the printer is
 * paired and online. Under the printer's row lock, like every printer write: a test print that loses a
 * race with `retire` is 404, never a job left queued on a retired printer.
 */
export async function queueTestPrint(s: PrinterScope, found: PrinterRow): Promise<{ status: 'queued'; print_job_id: string }> {
  const requireConfiguredForPrint = (p: PrinterRow) => {
    if (p.state === 'unconfigured') throw errors.conflict('Configure the printer before printing on it.', { reason: 'printer_unconfigured' });
  };
  requireConfiguredForPrint(found);
  const seq = await s.tdb.transaction().execute(async (tx) => {
    const printer = await lockLivePrinter(tx, found.id);
    requireConfiguredForPrint(printer);
    const { paper_width_mm } = await printerSettings(tx, printer);
    const location = await tx.selectFrom('locations').select('timezone').where('id', '=', printer.location_id).executeTakeFirst();
    const date = printedDate(s.now, location?.timezone ?? 'UTC');
    const document = renderEpos({ kind: 'test', printer: printer.name ?? printer.mac, date, lines: [printer.mac] }, { paperWidthMm: paper_width_mm });
    const id = await enqueuePrintJob(tx, { printerId: printer.id, kind: 'test', sourceKey: null, document });
    return (await tx.selectFrom('print_jobs').select('seq').where('id', '=', id!).executeTakeFirstOrThrow()).seq;
  });
  return { status: 'queued', print_job_id: printJobIdOf(seq) };
}

export { findPrinter };
