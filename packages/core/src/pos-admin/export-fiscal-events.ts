import { errors } from '@pos/kernel';
import { isBusinessDate } from '@pos/domain/business-day/business-day';
import { exportJournal, type DeviceVerification, type ExportedEntry, type JournalKeys } from '../fiscal/export-journal.ts';
import type { PosAdminScope } from './pos-admin-scope.ts';

/** One exported journal entry, timestamps as ISO strings. */
export type FiscalEventView = Omit<ExportedEntry, 'created_at' | 'completed_at'> & { created_at: string; completed_at: string | null };

/** One fiscal device's part of the export. */
export interface FiscalDeviceExport {
  fdm_id: string;
  /** null for a device whose enrolment row is gone. */
  mode: 'software' | 'remote' | null;
  status: 'active' | 'retired' | null;
  /** The location's entries in the window, in seq order. */
  entries: FiscalEventView[];
  /** The device's WHOLE journal verified end to end (chain, results, head counter, and software-mode signatures). */
  verification: DeviceVerification;
}

export interface ExportFiscalEventsInput {
  /** `YYYY-MM-DD` in the location's zone, inclusive. */
  from?: string;
  /** `YYYY-MM-DD` in the location's zone, inclusive. */
  to?: string;
}

/** What the export needs of the fiscal service: software-mode public keys and the journal seal key. */
export type FiscalKeys = JournalKeys;

/**
 * `GET /back-office/pos/{locationId}/fiscal-events` (VIEW_POS_REPORTS): the location's fiscal
 * journal per fiscal device it ever had (`exportJournal`), with the entries booked on the optional
 * window's dates (each entry's `bookingDate`: a day's late Z report is that day's) and each device's verification: seals for every device, and signatures of software-mode
 * devices with their public keys. 422 for a malformed date, `to` before `from`, or a window holding more
 * entries than one export answers (`FISCAL_EXPORT_MAX_ENTRIES`).
 */
export async function exportFiscalEvents(scope: PosAdminScope, keys: FiscalKeys, locationId: string, input: ExportFiscalEventsInput): Promise<FiscalDeviceExport[]> {
  if (input.from !== undefined && !isBusinessDate(input.from)) throw errors.field('from', 'The from field must be a valid date (YYYY-MM-DD).');
  if (input.to !== undefined && !isBusinessDate(input.to)) throw errors.field('to', 'The to field must be a valid date (YYYY-MM-DD).');
  if (input.from !== undefined && input.to !== undefined && input.to < input.from) throw errors.field('to', 'The to field must be a date after or equal to from.');
  const loc = await scope.tdb.selectFrom('locations').select('timezone').where('id', '=', locationId).executeTakeFirst();
  if (!loc) throw errors.notFound('location');
  const devices = await exportJournal(
    scope.tdb,
    { locationId, timeZone: loc.timezone, ...(input.from !== undefined ? { from: input.from } : {}), ...(input.to !== undefined ? { to: input.to } : {}) },
    keys,
  );
  return devices.map((d) => ({
    fdm_id: d.fdm_id,
    mode: d.mode,
    status: d.status,
    entries: d.entries.map((e) => ({ ...e, created_at: e.created_at.toISOString(), completed_at: e.completed_at?.toISOString() ?? null })),
    verification: d.verification,
  }));
}
