import { formatInTimeZone, fromZonedTime } from 'date-fns-tz';
import { ORDER_CAPACITY_SLOT_MINUTES } from '../payments/order-capacity.ts';

/**
 * Online-ordering timeslots (spec 1 "Online ordering and table QR ordering"), pure rules.
 * Hours are wall-clock times of the location's IANA zone; slots are real instants 15 minutes apart,
 * aligned with the order capacity slots (`capacitySlotOf`), so a slot's capacity is compared with the
 * completed orders the capture stamped in that same slot.
 */

/** ISO weekday: 1 = Monday … 7 = Sunday. */
export type IsoWeekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** One opening window; `close` at or before `open` means the window ends on the next day. */
export interface OpeningWindow {
  day: IsoWeekday;
  open: string;
  close: string;
}

export interface TimeslotRules {
  timeZone: string;
  hours: readonly OpeningWindow[];
  /** Minutes the kitchen needs: no slot starts earlier than now plus this. */
  preparationMinutes: number;
  /** Ordering is paused until this instant (a snoozed location); null when not snoozed. */
  snoozedUntil: Date | null;
}

export interface CandidateSlot {
  start: Date;
  end: Date;
  /** Wall-clock start in the location's zone, `HH:mm`. */
  local: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isClockTime(s: string): boolean {
  return HHMM.test(s);
}

/** A calendar date `YYYY-MM-DD` that exists. */
export function isCalendarDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

export function isoWeekdayOf(date: string): IsoWeekday {
  const d = new Date(`${date}T00:00:00Z`).getUTCDay();
  return (d === 0 ? 7 : d) as IsoWeekday;
}

export function addLocalDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Today's date in the zone. */
export function localDateOf(at: Date, timeZone: string): string {
  return formatInTimeZone(at, timeZone, 'yyyy-MM-dd');
}

/**
 * Instants a window covers on `date`. A wall-clock time skipped by a daylight-saving change (02:30 on
 * the spring-forward night) resolves to the instant after the gap, so the window just starts later.
 */
export function windowOn(date: string, w: OpeningWindow, timeZone: string): { start: Date; end: Date } {
  const start = wallClockInstant(date, w.open, timeZone);
  const closeDate = w.close <= w.open ? addLocalDays(date, 1) : date;
  const end = wallClockInstant(closeDate, w.close, timeZone);
  return { start, end };
}

/**
 * The instant of a wall-clock time; one inside a spring-forward gap becomes the end of the gap. One the
 * autumn change repeats is its FIRST occurrence, as everywhere else (`dayBounds`, `wallTimeToInstant`):
 * `fromZonedTime` takes the second east of UTC and the first west of it, so a window closing at 02:30
 * in Brussels on that night stayed open an hour late.
 */
export function wallClockInstant(date: string, time: string, timeZone: string): Date {
  const wanted = `${date}T${time}`;
  const at = fromZonedTime(`${wanted}:00`, timeZone);
  const shows = (d: Date) => formatInTimeZone(d, timeZone, "yyyy-MM-dd'T'HH:mm") === wanted;
  if (shows(at)) {
    // Clocks go back by 30 minutes (Lord Howe), an hour, or two (Troll): an earlier instant showing the same time is the first.
    const earlier = [120, 60, 30].map((m) => new Date(at.getTime() - m * 60_000)).find(shows);
    return earlier ?? at;
  }
  // Gaps are at most a few hours; walk the wall clock forward minute by minute to the first time that exists.
  let t = new Date(`${wanted}:00Z`).getTime();
  for (let i = 0; i < 24 * 60; i++) {
    t += 60_000;
    const wall = new Date(t).toISOString().slice(0, 16);
    const cand = fromZonedTime(`${wall}:00`, timeZone);
    if (formatInTimeZone(cand, timeZone, "yyyy-MM-dd'T'HH:mm") === wall) return cand;
  }
  return at;
}

/**
 * The slots offered for the business day `date`: the windows opening that day (a window crossing
 * midnight lists its after-midnight slots under the day it opened), stepped in real time so a
 * fall-back night never yields a slot twice and a spring-forward night none that does not exist; a
 * slot starts before its window closes, not earlier than `now` + preparation, and not while snoozed.
 */
export function candidateSlots(rules: TimeslotRules, date: string, now: Date, slotMinutes: number = ORDER_CAPACITY_SLOT_MINUTES): CandidateSlot[] {
  const step = slotMinutes * 60_000;
  let earliest = now.getTime() + rules.preparationMinutes * 60_000;
  if (rules.snoozedUntil && rules.snoozedUntil.getTime() > earliest) earliest = rules.snoozedUntil.getTime();
  const seen = new Set<number>();
  const out: CandidateSlot[] = [];
  const day = isoWeekdayOf(date);
  for (const w of rules.hours) {
    if (w.day !== day) continue;
    const { start, end } = windowOn(date, w, rules.timeZone);
    let t = Math.ceil(Math.max(start.getTime(), earliest) / step) * step;
    for (; t < end.getTime(); t += step) {
      if (seen.has(t)) continue;
      seen.add(t);
      const s = new Date(t);
      out.push({ start: s, end: new Date(t + step), local: formatInTimeZone(s, rules.timeZone, 'HH:mm') });
    }
  }
  return out.sort((a, b) => a.start.getTime() - b.start.getTime());
}

/** Whether the location takes orders at `at`: inside a window (today's or yesterday's crossing one), not snoozed. */
export function isOpenAt(rules: Pick<TimeslotRules, 'timeZone' | 'hours' | 'snoozedUntil'>, at: Date): boolean {
  if (rules.snoozedUntil && rules.snoozedUntil.getTime() > at.getTime()) return false;
  const today = localDateOf(at, rules.timeZone);
  for (const date of [addLocalDays(today, -1), today]) {
    const day = isoWeekdayOf(date);
    for (const w of rules.hours) {
      if (w.day !== day) continue;
      const { start, end } = windowOn(date, w, rules.timeZone);
      if (at.getTime() >= start.getTime() && at.getTime() < end.getTime()) return true;
    }
  }
  return false;
}

/**
 * Capacity per slot: `capacity` orders (0 = unlimited); `taken` maps a slot start (ms) to the completed
 * orders in it. Full slots are left out; `remaining` is null when unlimited.
 */
export function applySlotCapacity(slots: readonly CandidateSlot[], capacity: number, taken: ReadonlyMap<number, number>): (CandidateSlot & { remaining: number | null })[] {
  const out: (CandidateSlot & { remaining: number | null })[] = [];
  for (const s of slots) {
    if (capacity <= 0) {
      out.push({ ...s, remaining: null });
      continue;
    }
    const left = capacity - (taken.get(s.start.getTime()) ?? 0);
    if (left > 0) out.push({ ...s, remaining: left });
  }
  return out;
}
