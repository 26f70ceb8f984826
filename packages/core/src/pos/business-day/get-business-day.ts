import type { Kysely } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { dayBounds } from '@pos/domain/business-day/business-day';
import { reportingDay, type BusinessDayRow } from './business-day-queries.ts';
import { unclosedTills } from './day-report.ts';

/** `GET /pos/business-day` (and the business-day block of the Z close). */
export interface BusinessDayResource {
  /** YYYY-MM-DD on the location's wall calendar. */
  business_date: string;
  /** `open` until its Z close (a date without any booking yet reads `open`). */
  status: 'open' | 'closed';
  location_id: string;
  /** First booking (sale, refund, till event) or the close; null while the date has none. */
  opened_at: string | null;
  closed_at: string | null;
  /** Settled sales booked on the date. */
  sales_count: number;
  /** Tills of the location opened before the end of the date and not closed yet: they block the Z close. */
  open_tills: number;
  /** The Z report number once closed (1, 2, 3... per location), else null. */
  z_report_no: number | null;
}

/** The resource of a location's business date. */
export async function businessDayResource(db: Kysely<TenantTables>, locationId: string, date: string, timeZone: string, row: BusinessDayRow | null): Promise<BusinessDayResource> {
  const sales = await db
    .selectFrom('pos_transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('location_id', '=', locationId)
    .where('business_date', '=', date)
    .executeTakeFirstOrThrow();
  const tills = await unclosedTills(db, locationId, dayBounds(date, timeZone).end);
  return {
    business_date: date,
    status: row?.status ?? 'open',
    location_id: locationId,
    opened_at: row ? new Date(row.opened_at).toISOString() : null,
    closed_at: row?.closed_at ? new Date(row.closed_at).toISOString() : null,
    sales_count: Number(sales.n),
    open_tills: tills.length,
    z_report_no: row?.z_report_no ?? null,
  };
}

/**
 * `GET /pos/business-day`: a read-only peek at the fiscal business day the register works in: the
 * location's oldest business day still open up to today (a day whose Z close was forgotten comes
 * first, and is the one the next close closes), else today's, open or closed. Creates nothing.
 * Also the client's recovery probe.
 */
export async function getBusinessDay(db: TenantDb, actor: { locationId: string }, now: Date): Promise<BusinessDayResource> {
  const day = await reportingDay(db, actor.locationId, now);
  return businessDayResource(db, actor.locationId, day.date, day.timeZone, day.row);
}
