/**
 * Daily auto-sync schedule (spec 1 "Auto-sync schedule payload"): a wall-clock `HH:MM` (hour 0-23 with
 * one or two digits, minutes exactly 00 or 30) in an IANA zone, turned into the next UTC instant.
 */
export const SYNC_TIME_PATTERN = '^([01]?[0-9]|2[0-3]):(00|30)$';
const SYNC_TIME_RE = new RegExp(SYNC_TIME_PATTERN);

/** The zone of last resort of the default chain (rule 2). */
export const DEFAULT_SYNC_TIMEZONE = 'Europe/Brussels';

export interface WallTime {
  readonly hour: number;
  readonly minute: number;
}

/** `HH:MM` as hour and minute, or null when it breaks the payload rule. */
export function parseSyncTime(value: string): WallTime | null {
  const m = SYNC_TIME_RE.exec(value);
  if (!m) return null;
  return { hour: Number(m[1]), minute: Number(m[2]) };
}

const zoneValidity = new Map<string, boolean>();

/** Whether `zone` is an IANA zone identifier this runtime knows (offsets such as `+01:00` are not). */
export function isTimeZone(zone: string): boolean {
  const known = zoneValidity.get(zone);
  if (known !== undefined) return known;
  let ok = zone.length > 0 && zone.length <= 64 && /^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone);
  if (ok) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      ok = false;
    }
  }
  if (zoneValidity.size < 1000) zoneValidity.set(zone, ok);
  return ok;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The zone's offset from UTC at `instant`, in minutes (local = UTC + offset), read from Intl's wall clock.
 * (date-fns-tz 3.2 `getTimezoneOffset` answers the winter offset for the last hour before New York's
 * autumn change, so it is not used here.)
 */
export function zoneOffsetMinutes(zone: string, instant: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    if (formatters.size < 1000) formatters.set(zone, f);
  }
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instant))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  const floored = instant - (((instant % 1000) + 1000) % 1000);
  return Math.round((wall - floored) / MINUTE);
}

/** The local calendar date (as a UTC midnight timestamp) of `instant` in `zone`. */
function localMidnight(zone: string, instant: number): number {
  const local = instant + zoneOffsetMinutes(zone, instant) * MINUTE;
  return local - (((local % DAY) + DAY) % DAY);
}

/**
 * The UTC instant the wall time `at` on local day `dayUtcMidnight` means in `zone`.
 * - A repeated hour (autumn change) has two instants: the first one is taken, so the sync runs once.
 * - A skipped hour (spring change, e.g. 02:30 in Europe/Brussels on the last Sunday of March) has none:
 *   the time is read with the offset in force before the change, which moves it forward by the length
 *   of the gap (02:30 becomes 03:30 summer time) — the day still gets its sync, as late as the gap made it.
 *
 * Offsets run from -12 h to +14 h, so every instant showing `wall` lies within a day of it: the offsets
 * a day either side are the candidates (sampling ±12 h missed a change east of +12, e.g. Auckland's and
 * Chatham's autumn change, and took the wrong occurrence or an hour late). The offsets at the
 * candidates' own instants are tried too, so a second change within those two days is not missed.
 */
export function wallTimeToInstant(zone: string, dayUtcMidnight: number, at: WallTime): number {
  const wall = dayUtcMidnight + (at.hour * 60 + at.minute) * MINUTE;
  const before = zoneOffsetMinutes(zone, wall - DAY);
  const after = zoneOffsetMinutes(zone, wall + DAY);
  const candidates = new Set([before, after]);
  for (const off of [before, after]) candidates.add(zoneOffsetMinutes(zone, wall - off * MINUTE));
  let first: number | null = null;
  for (const off of candidates) {
    const utc = wall - off * MINUTE;
    if ((first === null || utc < first) && zoneOffsetMinutes(zone, utc) === off) first = utc;
  }
  return first ?? wall - before * MINUTE;
}

/**
 * Rule 5: the next UTC instant strictly after `now` at which the local wall clock of `zone` shows
 * `syncTime` (stored verbatim, never converted to UTC). Null when the time or the zone is unusable.
 */
export function nextSyncRun(syncTime: string, zone: string, now: Date): Date | null {
  const at = parseSyncTime(syncTime);
  if (!at || !isTimeZone(zone)) return null;
  const t = now.getTime();
  const today = localMidnight(zone, t);
  for (let d = -1; d <= 2; d++) {
    const candidate = wallTimeToInstant(zone, today + d * DAY, at);
    if (candidate > t) return new Date(candidate);
  }
  return null;
}

/**
 * Rule 7: a `sync_time` written before zones existed meant UTC. Read as UTC on the day of `at`, shown in
 * `zone`, and snapped to the nearest :00 or :30 (a quarter past or to, equally near both, goes to the
 * later one). Returns the new `HH:MM` (two-digit hour), or null for a value that is not a time.
 */
export function reinterpretUtcSyncTime(utcSyncTime: string, zone: string, at: Date): string | null {
  const m = /^([01]?[0-9]|2[0-3]):([0-5][0-9])$/.exec(utcSyncTime);
  if (!m || !isTimeZone(zone)) return null;
  const day = at.getTime() - (((at.getTime() % DAY) + DAY) % DAY);
  const utc = day + (Number(m[1]) * 60 + Number(m[2])) * MINUTE;
  const localMinutes = (Number(m[1]) * 60 + Number(m[2]) + zoneOffsetMinutes(zone, utc) + 1440) % 1440;
  const snapped = (Math.floor((localMinutes + 15) / 30) * 30) % 1440;
  return `${String(Math.floor(snapped / 60)).padStart(2, '0')}:${String(snapped % 60).padStart(2, '0')}`;
}
