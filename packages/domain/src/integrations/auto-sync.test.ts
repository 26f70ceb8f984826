import { describe, expect, test } from 'bun:test';
import { isTimeZone, nextSyncRun, parseSyncTime, reinterpretUtcSyncTime } from './auto-sync.ts';

/** A movable clock: each step asks for the next run strictly after the previous one, as the scheduler does. */
function runs(syncTime: string, zone: string, from: string, count: number): string[] {
  const out: string[] = [];
  let now = new Date(from);
  for (let i = 0; i < count; i++) {
    const next = nextSyncRun(syncTime, zone, now);
    if (!next) throw new Error('no next run');
    out.push(next.toISOString());
    now = next;
  }
  return out;
}

describe('sync_time payload rule', () => {
  test('HH:MM with hour 0-23 (one or two digits) and minutes 00 or 30', () => {
    expect(parseSyncTime('0:00')).toEqual({ hour: 0, minute: 0 });
    expect(parseSyncTime('07:30')).toEqual({ hour: 7, minute: 30 });
    expect(parseSyncTime('23:30')).toEqual({ hour: 23, minute: 30 });
    for (const bad of ['24:00', '07:15', '7:3', '07:45', '', '007:00', '07:00:00', ' 07:00', 'ab:cd', '-1:00']) expect(parseSyncTime(bad)).toBeNull();
  });
  test('zones are IANA identifiers', () => {
    expect(isTimeZone('Europe/Brussels')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('+01:00')).toBe(false);
  });
});

describe('next run: strictly after now, in the stored zone', () => {
  test('same day when the time is still ahead, next day when it passed or is now', () => {
    expect(nextSyncRun('07:30', 'Europe/Brussels', new Date('2026-01-10T05:00:00Z'))?.toISOString()).toBe('2026-01-10T06:30:00.000Z');
    // Exactly at the instant: strictly after, so tomorrow.
    expect(nextSyncRun('07:30', 'Europe/Brussels', new Date('2026-01-10T06:30:00Z'))?.toISOString()).toBe('2026-01-11T06:30:00.000Z');
    expect(nextSyncRun('0:00', 'Europe/Brussels', new Date('2026-01-10T22:59:59Z'))?.toISOString()).toBe('2026-01-10T23:00:00.000Z');
    // Local day differs from the UTC day (New York evening).
    expect(nextSyncRun('23:30', 'America/New_York', new Date('2026-01-11T03:00:00Z'))?.toISOString()).toBe('2026-01-11T04:30:00.000Z');
  });
  test('unusable time or zone gives no run', () => {
    expect(nextSyncRun('07:15', 'Europe/Brussels', new Date())).toBeNull();
    expect(nextSyncRun('07:00', 'Nowhere/Land', new Date())).toBeNull();
  });
});

describe('Europe/Brussels across both changes (2026-03-29 and 2026-10-25, at 01:00Z)', () => {
  test('spring: 02:30 does not exist; it runs at 03:30 summer time that day, then 02:30 again', () => {
    expect(runs('02:30', 'Europe/Brussels', '2026-03-27T12:00:00Z', 4)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:30:00.000Z', // skipped hour: 03:30 CEST, moved forward by the gap
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
  });
  test('spring: a time outside the gap keeps its wall clock and the UTC instant moves one hour', () => {
    expect(runs('07:00', 'Europe/Brussels', '2026-03-28T00:00:00Z', 3)).toEqual(['2026-03-28T06:00:00.000Z', '2026-03-29T05:00:00.000Z', '2026-03-30T05:00:00.000Z']);
  });
  test('autumn: 02:30 happens twice; it runs once, at the first one', () => {
    expect(runs('02:30', 'Europe/Brussels', '2026-10-24T12:00:00Z', 3)).toEqual([
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, first pass
      '2026-10-26T01:30:00.000Z', // not 01:30Z on the 25th (the repeat): the next day, 02:30 CET
      '2026-10-27T01:30:00.000Z',
    ]);
  });
  test('autumn: asked during the repeated hour, after the first 02:30, the next run is the next day', () => {
    expect(nextSyncRun('02:30', 'Europe/Brussels', new Date('2026-10-25T01:10:00Z'))?.toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });
  test('autumn: 07:00 keeps its wall clock', () => {
    expect(runs('07:00', 'Europe/Brussels', '2026-10-24T00:00:00Z', 3)).toEqual(['2026-10-24T05:00:00.000Z', '2026-10-25T06:00:00.000Z', '2026-10-26T06:00:00.000Z']);
  });
});

describe('America/New_York across both changes (2026-03-08 at 07:00Z, 2026-11-01 at 06:00Z)', () => {
  test('spring: 02:30 is skipped; it runs at 03:30 EDT', () => {
    expect(runs('2:30', 'America/New_York', '2026-03-06T12:00:00Z', 3)).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST
      '2026-03-08T07:30:00.000Z', // 03:30 EDT
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
  });
  test('autumn: 01:30 happens twice; it runs once', () => {
    expect(runs('1:30', 'America/New_York', '2026-10-31T12:00:00Z', 3)).toEqual([
      '2026-11-01T05:30:00.000Z', // 01:30 EDT
      '2026-11-02T06:30:00.000Z', // 01:30 EST the next day (the 06:30Z repeat on the 1st is skipped)
      '2026-11-03T06:30:00.000Z',
    ]);
  });
  test('autumn: 02:30 (after the repeat) is unambiguous', () => {
    expect(runs('2:30', 'America/New_York', '2026-10-31T12:00:00Z', 2)).toEqual(['2026-11-01T07:30:00.000Z', '2026-11-02T07:30:00.000Z']);
  });
});

describe('rule 7: one-time reinterpretation of a UTC sync_time', () => {
  test('UTC time shown in the zone on the day of the migration', () => {
    expect(reinterpretUtcSyncTime('05:00', 'Europe/Brussels', new Date('2026-01-15T12:00:00Z'))).toBe('06:00');
    expect(reinterpretUtcSyncTime('05:00', 'Europe/Brussels', new Date('2026-07-15T12:00:00Z'))).toBe('07:00');
    expect(reinterpretUtcSyncTime('3:30', 'America/New_York', new Date('2026-01-15T12:00:00Z'))).toBe('22:30');
  });
  test('snapped to the nearest :00 or :30', () => {
    expect(reinterpretUtcSyncTime('04:10', 'Europe/Brussels', new Date('2026-01-15T12:00:00Z'))).toBe('05:00');
    expect(reinterpretUtcSyncTime('04:20', 'Europe/Brussels', new Date('2026-01-15T12:00:00Z'))).toBe('05:30');
    expect(reinterpretUtcSyncTime('04:15', 'Europe/Brussels', new Date('2026-01-15T12:00:00Z'))).toBe('05:30');
    // Kathmandu is UTC+05:45: 18:30Z is 00:15 local, snapped to 00:30; 18:00Z is 23:45, snapped to midnight.
    expect(reinterpretUtcSyncTime('18:30', 'Asia/Kathmandu', new Date('2026-01-15T12:00:00Z'))).toBe('00:30');
    expect(reinterpretUtcSyncTime('18:00', 'Asia/Kathmandu', new Date('2026-01-15T12:00:00Z'))).toBe('00:00');
  });
  test('garbage stays garbage', () => {
    expect(reinterpretUtcSyncTime('later', 'Europe/Brussels', new Date())).toBeNull();
  });
});
