import { describe, expect, test } from 'bun:test';
import { prng } from '../testing/prng.ts';
import { addDays, businessDate, dayBounds, isBusinessDate, isValidTimeZone } from './business-day.ts';

const H = 3_600_000;
const iso = (b: { start: Date; end: Date }) => [b.start.toISOString(), b.end.toISOString()];
const hours = (b: { start: Date; end: Date }) => (b.end.getTime() - b.start.getTime()) / H;

describe('businessDate', () => {
  test('local midnight is the boundary', () => {
    // 22:59:59Z is 23:59:59 CET on the 28th; 23:00Z is midnight CET on the 29th
    expect(businessDate(new Date('2026-03-28T22:59:59.999Z'), 'Europe/Brussels')).toBe('2026-03-28');
    expect(businessDate(new Date('2026-03-28T23:00:00.000Z'), 'Europe/Brussels')).toBe('2026-03-29');
    // summer: UTC+2
    expect(businessDate(new Date('2026-07-01T21:59:59Z'), 'Europe/Brussels')).toBe('2026-07-01');
    expect(businessDate(new Date('2026-07-01T22:00:00Z'), 'Europe/Brussels')).toBe('2026-07-02');
    expect(businessDate(new Date('2026-07-01T22:00:00Z'), 'UTC')).toBe('2026-07-01');
    expect(businessDate(new Date('2026-07-01T03:00:00Z'), 'America/New_York')).toBe('2026-06-30');
  });

  test('a cut-over hour moves the small hours to the previous date', () => {
    // 02:30 CEST on 2 July -> business date 1 July with a 04:00 cut-over
    const t = new Date('2026-07-02T00:30:00Z');
    expect(businessDate(t, 'Europe/Brussels')).toBe('2026-07-02');
    expect(businessDate(t, 'Europe/Brussels', { cutoverHour: 4 })).toBe('2026-07-01');
    expect(businessDate(new Date('2026-07-02T02:00:00Z'), 'Europe/Brussels', { cutoverHour: 4 })).toBe('2026-07-02');
    expect(businessDate(new Date('2026-01-01T02:00:00Z'), 'Europe/Brussels', { cutoverHour: 4 })).toBe('2025-12-31');
  });

  test('refuses unknown zones, invalid instants and bad cut-over hours', () => {
    expect(() => businessDate(new Date(), 'Not/AZone')).toThrow(RangeError);
    expect(() => businessDate(new Date(Number.NaN), 'UTC')).toThrow(RangeError);
    expect(() => businessDate(new Date(), 'UTC', { cutoverHour: 24 })).toThrow(RangeError);
    expect(() => businessDate(new Date(), 'UTC', { cutoverHour: 1.5 })).toThrow(RangeError);
  });
});

describe('dayBounds', () => {
  test('an ordinary day', () => {
    expect(iso(dayBounds('2026-07-01', 'Europe/Brussels'))).toEqual(['2026-06-30T22:00:00.000Z', '2026-07-01T22:00:00.000Z']);
    expect(iso(dayBounds('2026-07-01', 'UTC'))).toEqual(['2026-07-01T00:00:00.000Z', '2026-07-02T00:00:00.000Z']);
  });

  test('Europe/Brussels spring forward: 2026-03-29 lasts 23 h', () => {
    const b = dayBounds('2026-03-29', 'Europe/Brussels');
    expect(iso(b)).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    expect(hours(b)).toBe(23);
  });

  test('Europe/Brussels fall back: 2026-10-25 lasts 25 h', () => {
    const b = dayBounds('2026-10-25', 'Europe/Brussels');
    expect(iso(b)).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect(hours(b)).toBe(25);
  });

  test('a cut-over hour inside the DST gap starts the day at the transition', () => {
    // 02:00 does not exist in Brussels on 2026-03-29: the day starts at 03:00 CEST (01:00Z)
    const b = dayBounds('2026-03-29', 'Europe/Brussels', { cutoverHour: 2 });
    expect(iso(b)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:00:00.000Z']);
    expect(hours(b)).toBe(23);
    expect(iso(dayBounds('2026-03-28', 'Europe/Brussels', { cutoverHour: 2 }))).toEqual(['2026-03-28T01:00:00.000Z', '2026-03-29T01:00:00.000Z']);
  });

  test('a repeated cut-over hour (fall back) starts at its first occurrence', () => {
    const b = dayBounds('2026-10-25', 'Europe/Brussels', { cutoverHour: 2 });
    expect(iso(b)).toEqual(['2026-10-25T00:00:00.000Z', '2026-10-26T01:00:00.000Z']);
    expect(hours(b)).toBe(25);
  });

  test('a zone whose DST gap is at midnight (America/Santiago, 2026-09-06) starts at 01:00', () => {
    const b = dayBounds('2026-09-06', 'America/Santiago');
    expect(iso(b)).toEqual(['2026-09-06T04:00:00.000Z', '2026-09-07T03:00:00.000Z']);
    expect(hours(b)).toBe(23);
  });

  test('half-hour DST (Australia/Lord_Howe, 2026-10-04, cut-over 02:00) lasts 23.5 h', () => {
    expect(hours(dayBounds('2026-10-04', 'Australia/Lord_Howe', { cutoverHour: 2 }))).toBe(23.5);
  });

  test("the calendar's last date (9999-12-31) has bounds: it ends where 10000-01-01 starts (a report range ending there was a 500)", () => {
    expect(dayBounds('9999-12-31', 'Europe/Brussels')).toEqual({ start: new Date('9999-12-30T23:00:00.000Z'), end: new Date('9999-12-31T23:00:00.000Z') });
    expect(dayBounds('9999-12-31', 'UTC', { cutoverHour: 4 }).end).toEqual(new Date('+010000-01-01T04:00:00.000Z'));
  });

  test('refuses malformed dates', () => {
    expect(() => dayBounds('2026-02-30', 'UTC')).toThrow(RangeError);
    expect(() => dayBounds('2026-7-1', 'UTC')).toThrow(RangeError);
    expect(() => dayBounds('2026-07-01', 'Mars/Olympus')).toThrow(RangeError);
  });

  test('property: every instant lies inside the bounds of its business date, and days are contiguous', () => {
    const zones = ['Europe/Brussels', 'UTC', 'America/New_York', 'America/Santiago', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Auckland'];
    const r = prng(20260329);
    const from = Date.UTC(2024, 0, 1);
    const to = Date.UTC(2029, 0, 1);
    for (let i = 0; i < 2000; i++) {
      const tz = r.pick(zones);
      const cutoverHour = r.bool(0.5) ? 0 : r.int(0, 23);
      const t = new Date(from + Math.floor(r.next() * (to - from)));
      const date = businessDate(t, tz, { cutoverHour });
      const b = dayBounds(date, tz, { cutoverHour });
      expect(b.start.getTime()).toBeLessThanOrEqual(t.getTime());
      expect(t.getTime()).toBeLessThan(b.end.getTime());
      expect(businessDate(b.start, tz, { cutoverHour })).toBe(date);
      expect(businessDate(new Date(b.end.getTime() - 1), tz, { cutoverHour })).toBe(date);
      expect(businessDate(b.end, tz, { cutoverHour })).toBe(addDays(date, 1));
      expect(dayBounds(addDays(date, 1), tz, { cutoverHour }).start.getTime()).toBe(b.end.getTime());
      expect(hours(b)).toBeGreaterThanOrEqual(23);
      expect(hours(b)).toBeLessThanOrEqual(25);
    }
  });
});

describe('helpers', () => {
  test('isBusinessDate, addDays, isValidTimeZone', () => {
    expect(isBusinessDate('2028-02-29')).toBe(true);
    expect(isBusinessDate('2026-02-29')).toBe(false);
    expect(isBusinessDate('20260101')).toBe(false);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(isValidTimeZone('Europe/Brussels')).toBe(true);
    expect(isValidTimeZone('Europe/Brusels')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});
