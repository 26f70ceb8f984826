import type { Kysely, Selectable } from 'kysely';
import type { TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { businessDate } from '@pos/domain/business-day/business-day';
import { derivedBookingPeriodId } from '../../fiscal/index.ts';

/** A `pos_business_days` row. */
export type BusinessDayRow = Selectable<TenantTables['pos_business_days']>;

type Db = Kysely<TenantTables>;

/** 409 `business_day_closed`: the day's Z report is done; nothing more is booked on that date. */
export const BUSINESS_DAY_CLOSED_MESSAGE = 'The business day is closed (its Z report is done). New sales, refunds and till activity start with the next business day at local midnight.';
export const businessDayClosed = (date: string) => errors.conflict(BUSINESS_DAY_CLOSED_MESSAGE, { reason: 'business_day_closed', extra: { business_date: date } });

/** The location's IANA zone (business days follow its wall calendar). */
export async function locationTimeZone(db: Db, locationId: string): Promise<string> {
  const row = await db.selectFrom('locations').select('timezone').where('id', '=', locationId).executeTakeFirst();
  if (!row) throw errors.notFound('location');
  return row.timezone;
}

/**
 * The id of a location's business day: the same id every fiscal event of that date books under
 * (`bookingPeriodId`, `derivedBookingPeriodId(location, date)`), so the row and the signed events agree.
 */
export const businessDayId = (locationId: string, date: string): string => derivedBookingPeriodId(locationId, date);

/**
 * The business day row of (location, date), created lazily (open, `opened_at` = now) when this is
 * the first sale, refund, till event or close of that date. Concurrent creators meet on the unique
 * (location, date) constraint. `lock` takes the row FOR SHARE (bookings) or FOR UPDATE (the Z close).
 */
export async function ensureBusinessDay(db: Db, locationId: string, date: string, now: Date, opts: { lock?: 'share' | 'update' } = {}): Promise<BusinessDayRow> {
  await db
    .insertInto('pos_business_days')
    .values({ id: businessDayId(locationId, date), location_id: locationId, business_date: date, status: 'open', opened_at: now })
    .onConflict((oc) => oc.doNothing())
    .execute();
  let q = db.selectFrom('pos_business_days').selectAll().where('location_id', '=', locationId).where('business_date', '=', date);
  if (opts.lock === 'share') q = q.forShare();
  if (opts.lock === 'update') q = q.forUpdate();
  return q.executeTakeFirstOrThrow();
}

/**
 * The business day a booking made `now` belongs to (the location's local date), created when it is
 * the first of its date and held FOR SHARE until the caller commits, so a Z close (which takes the
 * row FOR UPDATE) waits for bookings in flight and counts them. After the Z close of that date:
 * 409 `business_day_closed` (the next business day starts at local midnight).
 */
export async function requireOpenBusinessDay(tx: Db, locationId: string, now: Date): Promise<{ id: string; date: string }> {
  const date = businessDate(now, await locationTimeZone(tx, locationId));
  const day = await ensureBusinessDay(tx, locationId, date, now, { lock: 'share' });
  if (day.status === 'closed') throw businessDayClosed(date);
  return { id: day.id, date };
}

/**
 * The business day the register reports on and the next Z close closes: the location's OLDEST
 * business day still open up to today (a day whose Z was forgotten is closed first, so no day with
 * bookings is ever left without its Z), else today's (open or already closed; `row` null while
 * today has no booking yet).
 */
export async function reportingDay(db: Db, locationId: string, now: Date): Promise<{ date: string; today: string; timeZone: string; row: BusinessDayRow | null }> {
  const timeZone = await locationTimeZone(db, locationId);
  const today = businessDate(now, timeZone);
  const open = await db
    .selectFrom('pos_business_days')
    .selectAll()
    .where('location_id', '=', locationId)
    .where('status', '=', 'open')
    .where('business_date', '<=', today)
    .orderBy('business_date', 'asc')
    .limit(1)
    .executeTakeFirst();
  if (open) return { date: open.business_date, today, timeZone, row: open };
  const row = await db.selectFrom('pos_business_days').selectAll().where('location_id', '=', locationId).where('business_date', '=', today).executeTakeFirst();
  return { date: today, today, timeZone, row: row ?? null };
}
