import { formatInTimeZone, getTimezoneOffset } from 'date-fns-tz';

/** A business date, `YYYY-MM-DD`, on the location's wall calendar. */
export type BusinessDate = string;

export interface BusinessDayOptions {
  /**
   * Local hour (integer 0-23) at which a business day starts. Default 0: the day boundary is local
   * midnight in the location's zone. With 4, a sale at 02:30 local belongs to the previous date.
   */
  readonly cutoverHour?: number;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isBusinessDate(s: unknown): s is BusinessDate {
  if (typeof s !== 'string') return false;
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** True for an IANA zone the runtime knows (`Europe/Brussels`, `UTC`). */
// Building an Intl.DateTimeFormat is costly and zones are few: remember the answers.
const zoneValidity = new Map<string, boolean>();

export function isValidTimeZone(tz: unknown): tz is string {
  if (typeof tz !== 'string' || tz.length === 0) return false;
  const known = zoneValidity.get(tz);
  if (known !== undefined) return known;
  let ok = true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    ok = false;
  }
  if (zoneValidity.size < 1000) zoneValidity.set(tz, ok);
  return ok;
}

function assertZone(tz: string): void {
  if (!isValidTimeZone(tz)) throw new RangeError(`Unknown time zone ${JSON.stringify(tz)}`);
}

function cutoverOf(opts: BusinessDayOptions | undefined): number {
  const h = opts?.cutoverHour ?? 0;
  if (!Number.isInteger(h) || h < 0 || h > 23) throw new RangeError(`cutoverHour must be an integer 0-23, got ${h}`);
  return h;
}

/** The calendar date `days` after `date` (negative for before). */
export function addDays(date: BusinessDate, days: number): BusinessDate {
  if (!isBusinessDate(date)) throw new RangeError(`Not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/**
 * The business date of an instant at a location: the local calendar date in `timeZone` (through
 * date-fns-tz), where the day starts at local midnight, or at `cutoverHour` local when given
 * (an instant before the cut-over hour belongs to the previous date). The hour is read on the local
 * wall clock, so DST days need no special case.
 */
export function businessDate(instant: Date, timeZone: string, opts?: BusinessDayOptions): BusinessDate {
  assertZone(timeZone);
  if (Number.isNaN(instant.getTime())) throw new RangeError('Invalid instant');
  const cutover = cutoverOf(opts);
  const { date, hour } = localDateHour(instant, timeZone);
  return hour < cutover ? addDays(date, -1) : date;
}

/**
 * One formatter per zone: building an Intl formatter costs far more than using one, and every sale
 * asks for its business date.
 */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The local calendar date (YYYY-MM-DD), hour (0-23) and minute of an instant in `timeZone`. */
function localDateHour(instant: Date, timeZone: string): { date: BusinessDate; hour: number; minute: number } {
  let f = wallClocks.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    if (wallClocks.size < 1000) wallClocks.set(timeZone, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(instant)) parts[p.type] = p.value;
  const year = parts.year!.padStart(4, '0');
  return { date: `${year}-${parts.month}-${parts.day}`, hour: Number(parts.hour) % 24, minute: Number(parts.minute) };
}

/**
 * The wall clock of an instant in `timeZone`: its local date, ISO weekday (1 = Monday .. 7 = Sunday),
 * hour and minute. Read through Intl in that zone, so the process's own zone (`TZ`) plays no part
 * (a `toZonedTime` Date read with `getHours()` is shifted by the host zone's DST gap).
 */
export function localWallClock(instant: Date, timeZone: string): { date: BusinessDate; weekday: number; hour: number; minute: number } {
  assertZone(timeZone);
  if (Number.isNaN(instant.getTime())) throw new RangeError('Invalid instant');
  const { date, hour, minute } = localDateHour(instant, timeZone);
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return { date, weekday: day === 0 ? 7 : day, hour, minute };
}

/**
 * The UTC instant at which the local wall time `date` `hour`:00 first occurs in `tz`. If that
 * wall time falls in a DST gap (it never occurs), the instant the gap ends (the transition) is
 * returned, so bounds stay contiguous and agree with `businessDate`.
 */
function startOfLocalHour(date: BusinessDate, hour: number, tz: string, dayOffset = 0): Date {
  const [y0, m0, d0] = date.split('-').map(Number) as [number, number, number];
  // The day is moved here, on numbers: the day after 9999-12-31 has no YYYY-MM-DD spelling (addDays
  // would give `+010000-01`), yet it is where that date's business day ends.
  const day = new Date(Date.UTC(y0, m0 - 1, d0 + dayOffset));
  const [y, m, d] = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
  const wallAsUtc = Date.UTC(y, m - 1, d, hour);
  const target = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')} ${String(hour).padStart(2, '0')}:00`;
  // Offsets in force a day either side: zones change offset at most once in such a window.
  const before = getTimezoneOffset(tz, new Date(wallAsUtc - DAY));
  const after = getTimezoneOffset(tz, new Date(wallAsUtc + DAY));
  const candidates = [wallAsUtc - before, wallAsUtc - after]
    .filter((t) => formatInTimeZone(new Date(t), tz, 'yyyy-MM-dd HH:mm') === target)
    .sort((a, b) => a - b);
  // Repeated wall time (DST fall-back): the first occurrence. Gap: the pre-transition offset lands on the transition.
  return new Date(candidates[0] ?? wallAsUtc - before);
}

/**
 * The UTC bounds of a business date at a location: `start` inclusive, `end` exclusive (the next
 * date's start). DST-safe: in Europe/Brussels 2026-03-29 lasts 23 h and 2026-10-25 lasts 25 h.
 * Throws RangeError for a malformed date, an unknown zone or a bad cut-over hour.
 */
export function dayBounds(date: BusinessDate, timeZone: string, opts?: BusinessDayOptions): { start: Date; end: Date } {
  if (!isBusinessDate(date)) throw new RangeError(`Not a YYYY-MM-DD date: ${JSON.stringify(date)}`);
  assertZone(timeZone);
  const cutover = cutoverOf(opts);
  return { start: startOfLocalHour(date, cutover, timeZone), end: startOfLocalHour(date, cutover, timeZone, 1) };
}
