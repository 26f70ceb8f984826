import { describe, expect, test } from 'bun:test';
import { applySlotCapacity, candidateSlots, isCalendarDate, isOpenAt, isoWeekdayOf, type OpeningWindow, type TimeslotRules } from './timeslots.ts';
import { capacitySlotOf } from '../payments/order-capacity.ts';

const everyDay = (open: string, close: string): OpeningWindow[] => ([1, 2, 3, 4, 5, 6, 7] as const).map((day) => ({ day, open, close }));
const brussels = (hours: OpeningWindow[], extra: Partial<TimeslotRules> = {}): TimeslotRules => ({ timeZone: 'Europe/Brussels', hours, preparationMinutes: 0, snoozedUntil: null, ...extra });
const iso = (d: Date) => d.toISOString();
const longAgo = new Date('2020-01-01T00:00:00Z');

describe('timeslots in the location zone', () => {
  test('a plain winter day in Brussels: UTC+1, 15-minute slots from open to close', () => {
    const s = candidateSlots(brussels(everyDay('11:00', '12:00')), '2026-01-15', longAgo);
    expect(s.map((x) => x.local)).toEqual(['11:00', '11:15', '11:30', '11:45']);
    expect(iso(s[0]!.start)).toBe('2026-01-15T10:00:00.000Z');
    expect(iso(s[3]!.end)).toBe('2026-01-15T11:00:00.000Z');
    // Every slot is a capacity slot, so the capture's stamp and the offer agree.
    for (const x of s) expect(capacitySlotOf(x.start).getTime()).toBe(x.start.getTime());
  });

  test('spring forward in Brussels (29 March 2026): 02:00-03:00 does not exist', () => {
    const s = candidateSlots(brussels(everyDay('01:00', '04:00')), '2026-03-29', longAgo);
    expect(s.map((x) => x.local)).toEqual(['01:00', '01:15', '01:30', '01:45', '03:00', '03:15', '03:30', '03:45']);
    expect(iso(s[3]!.start)).toBe('2026-03-29T00:45:00.000Z');
    expect(iso(s[4]!.start)).toBe('2026-03-29T01:00:00.000Z');
    // A window opening inside the gap starts at the instant after it.
    const gap = candidateSlots(brussels(everyDay('02:30', '03:30')), '2026-03-29', longAgo);
    expect(gap.map((x) => x.local)).toEqual(['03:00', '03:15']);
  });

  test('fall back in Brussels (25 October 2026): 02:00-03:00 twice, each real slot once', () => {
    const s = candidateSlots(brussels(everyDay('01:30', '03:30')), '2026-10-25', longAgo);
    expect(s.map((x) => x.local)).toEqual(['01:30', '01:45', '02:00', '02:15', '02:30', '02:45', '02:00', '02:15', '02:30', '02:45', '03:00', '03:15']);
    expect(iso(s[0]!.start)).toBe('2026-10-24T23:30:00.000Z');
    expect(iso(s[11]!.start)).toBe('2026-10-25T02:15:00.000Z');
    expect(new Set(s.map((x) => x.start.getTime())).size).toBe(12);
  });

  test('fall back: a window ending (or opening) in the repeated hour means its first occurrence, east and west of UTC alike', () => {
    // Saturday 24 October 2026, 18:00 to 02:30 in Brussels: it closes at 02:30 summer time (00:30Z).
    const late = candidateSlots(brussels([{ day: 6, open: '18:00', close: '02:30' }]), '2026-10-24', longAgo);
    // Before: it closed at the second 02:30 (01:30Z), four slots and an hour late.
    expect(iso(late.at(-1)!.end)).toBe('2026-10-25T00:30:00.000Z');
    expect(late.slice(-2).map((x) => x.local)).toEqual(['02:00', '02:15']);
    expect(isOpenAt(brussels([{ day: 6, open: '18:00', close: '02:30' }]), new Date('2026-10-25T00:45:00Z'))).toBe(false);
    expect(isOpenAt(brussels([{ day: 6, open: '18:00', close: '02:30' }]), new Date('2026-10-25T00:15:00Z'))).toBe(true);
    const opening = candidateSlots(brussels(everyDay('02:30', '04:00')), '2026-10-25', longAgo);
    expect(iso(opening[0]!.start)).toBe('2026-10-25T00:30:00.000Z');
    // Auckland (east, +13 -> +12 on 5 April 2026) and Los Angeles (west, 1 November 2026) as well.
    const auckland = candidateSlots({ ...brussels([{ day: 6, open: '20:00', close: '02:30' }]), timeZone: 'Pacific/Auckland' }, '2026-04-04', longAgo);
    expect(iso(auckland.at(-1)!.end)).toBe('2026-04-04T13:30:00.000Z');
    const la = candidateSlots({ ...brussels([{ day: 6, open: '17:00', close: '01:30' }]), timeZone: 'America/Los_Angeles' }, '2026-10-31', longAgo);
    expect(iso(la.at(-1)!.end)).toBe('2026-11-01T08:30:00.000Z');
  });

  test('a summer day is UTC+2', () => {
    const s = candidateSlots(brussels(everyDay('12:00', '12:30')), '2026-07-01', longAgo);
    expect(s.map((x) => iso(x.start))).toEqual(['2026-07-01T10:00:00.000Z', '2026-07-01T10:15:00.000Z']);
  });

  test('a window crossing midnight lists its after-midnight slots under the day it opened', () => {
    const friday = '2026-01-16';
    expect(isoWeekdayOf(friday)).toBe(5);
    const s = candidateSlots(brussels([{ day: 5, open: '23:00', close: '01:00' }]), friday, longAgo);
    expect(s.map((x) => x.local)).toEqual(['23:00', '23:15', '23:30', '23:45', '00:00', '00:15', '00:30', '00:45']);
    expect(iso(s[7]!.start)).toBe('2026-01-16T23:45:00.000Z');
    // Saturday has no window of its own.
    expect(candidateSlots(brussels([{ day: 5, open: '23:00', close: '01:00' }]), '2026-01-17', longAgo)).toEqual([]);
    // Open at 00:30 Saturday through Friday's window, closed at 01:00.
    const rules = brussels([{ day: 5, open: '23:00', close: '01:00' }]);
    expect(isOpenAt(rules, new Date('2026-01-16T23:30:00Z'))).toBe(true);
    expect(isOpenAt(rules, new Date('2026-01-17T00:00:00Z'))).toBe(false);
  });

  test('preparation time: no slot before now + preparation, rounded up to the next slot', () => {
    const now = new Date('2026-01-15T10:07:00Z'); // 11:07 in Brussels
    const s = candidateSlots(brussels(everyDay('11:00', '12:00'), { preparationMinutes: 20 }), '2026-01-15', now);
    expect(s.map((x) => x.local)).toEqual(['11:30', '11:45']);
  });

  test('a snoozed location offers nothing before the snooze ends', () => {
    const snoozedUntil = new Date('2026-01-15T10:40:00Z');
    const s = candidateSlots(brussels(everyDay('11:00', '12:00'), { snoozedUntil }), '2026-01-15', longAgo);
    expect(s.map((x) => x.local)).toEqual(['11:45']);
    expect(isOpenAt(brussels(everyDay('11:00', '12:00'), { snoozedUntil }), new Date('2026-01-15T10:30:00Z'))).toBe(false);
    expect(isOpenAt(brussels(everyDay('11:00', '12:00'), { snoozedUntil }), new Date('2026-01-15T10:45:00Z'))).toBe(true);
  });

  test('a location in another zone: America/New_York across its own spring forward (8 March 2026)', () => {
    const rules: TimeslotRules = { timeZone: 'America/New_York', hours: everyDay('09:00', '09:30'), preparationMinutes: 0, snoozedUntil: null };
    expect(candidateSlots(rules, '2026-03-07', longAgo).map((x) => iso(x.start))).toEqual(['2026-03-07T14:00:00.000Z', '2026-03-07T14:15:00.000Z']);
    expect(candidateSlots(rules, '2026-03-08', longAgo).map((x) => iso(x.start))).toEqual(['2026-03-08T13:00:00.000Z', '2026-03-08T13:15:00.000Z']);
    // The same instant is 14:00 in New York and 19:00 in Brussels on 7 March: each zone reads its own clock.
    expect(candidateSlots(rules, '2026-03-07', longAgo)[0]!.local).toBe('09:00');
  });

  test('a half-hour zone (Asia/Kolkata, UTC+5:30) keeps slots on the capacity grid', () => {
    const rules: TimeslotRules = { timeZone: 'Asia/Kolkata', hours: everyDay('12:00', '12:30'), preparationMinutes: 0, snoozedUntil: null };
    const s = candidateSlots(rules, '2026-01-15', longAgo);
    expect(s.map((x) => [x.local, iso(x.start)])).toEqual([['12:00', '2026-01-15T06:30:00.000Z'], ['12:15', '2026-01-15T06:45:00.000Z']]);
  });

  test('capacity per slot: full slots are left out, remaining counts down, 0 is unlimited', () => {
    const s = candidateSlots(brussels(everyDay('11:00', '12:00')), '2026-01-15', longAgo);
    const taken = new Map([[s[0]!.start.getTime(), 3], [s[1]!.start.getTime(), 1]]);
    expect(applySlotCapacity(s, 3, taken).map((x) => [x.local, x.remaining])).toEqual([['11:15', 2], ['11:30', 3], ['11:45', 3]]);
    expect(applySlotCapacity(s, 0, taken).map((x) => x.remaining)).toEqual([null, null, null, null]);
  });

  test('calendar dates', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-30')).toBe(false);
    expect(isCalendarDate('2026-2-1')).toBe(false);
  });
});
