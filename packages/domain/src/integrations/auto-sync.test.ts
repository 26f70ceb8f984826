import { describe, expect, test } from 'bun:test';
import { isTimeZone, nextSyncRun, parseSyncTime, reinterpretUtcSyncTime, wallTimeToInstant, zoneOffsetMinutes } from './auto-sync.ts';

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

describe('zones east of +12 on their autumn change (the offsets were sampled only ±12 h away)', () => {
  test('Pacific/Chatham: 02:00 on 2026-04-05 (before its repeated 02:45-03:45) runs at 02:00 +13:45, not an hour late', () => {
    expect(nextSyncRun('2:00', 'Pacific/Chatham', new Date('2026-04-04T00:00:00Z'))!.toISOString()).toBe('2026-04-04T12:15:00.000Z');
  });
  test('Pacific/Auckland: 02:30 on 2026-04-05 happens twice; it runs at the first one (+13)', () => {
    expect(runs('2:30', 'Pacific/Auckland', '2026-04-04T00:00:00Z', 2)).toEqual(['2026-04-04T13:30:00.000Z', '2026-04-05T14:30:00.000Z']);
  });
  test('Pacific/Kiritimati (+14) and Etc/GMT+12 (-12) keep their wall clock', () => {
    expect(nextSyncRun('0:30', 'Pacific/Kiritimati', new Date('2026-06-01T00:00:00Z'))!.toISOString()).toBe('2026-06-01T10:30:00.000Z');
    expect(nextSyncRun('23:30', 'Etc/GMT+12', new Date('2026-06-01T00:00:00Z'))!.toISOString()).toBe('2026-06-01T11:30:00.000Z');
  });
});

/**
 * Brute-force reference for `wallTimeToInstant`: every offset a zone can have (-12 h to +14 h, in
 * quarter hours; the sweep checks no zone uses another) is tried, and the earliest instant whose
 * offset matches is the answer; when none does (a skipped hour), the wall time read with the offset in
 * force just before the jump. Offsets are memoised: neighbouring slots share most instants.
 */
const QUARTER = 15 * 60_000;
const HOUR = 3_600_000;
const DAY_MS = 86_400_000;
const offsetMemo = new Map<string, Map<number, number>>();
function memoOffset(zone: string, instant: number): number {
  let byInstant = offsetMemo.get(zone);
  if (!byInstant) offsetMemo.set(zone, (byInstant = new Map()));
  let off = byInstant.get(instant);
  if (off === undefined) {
    off = zoneOffsetMinutes(zone, instant);
    byInstant.set(instant, off);
  }
  return off;
}
function referenceInstant(zone: string, wall: number): number {
  for (let off = 14 * 60; off >= -12 * 60; off -= 15) {
    // From the largest offset down: the earliest instant first.
    if (memoOffset(zone, wall - off * 60_000) === off) return wall - off * 60_000;
  }
  let lastBelow: number | null = null;
  for (let u = wall - 15 * HOUR; u <= wall + 15 * HOUR; u += QUARTER) if (u + memoOffset(zone, u) * 60_000 < wall) lastBelow = u;
  if (lastBelow === null) throw new Error(`no reference for ${zone} at ${new Date(wall).toISOString()}`);
  return wall - memoOffset(zone, lastBelow) * 60_000;
}

/**
 * The offset changes of `zone` within [from, to) as `minute:offset` (the instant of the change, the
 * offset after it), and the local dates (UTC midnights) of the day before, of and after each change.
 * Offsets are sampled every 3 days (no zone changes twice within 3 days in these years), then the change
 * is found by bisection to the minute.
 */
function zoneChanges(zone: string, from: number, to: number): { signature: string; days: number[] } {
  const step = 3 * DAY_MS;
  const days = new Set<number>();
  let prev = zoneOffsetMinutes(zone, from);
  const changes = [`${prev}`];
  for (let t = from + step; t < to; t += step) {
    const off = zoneOffsetMinutes(zone, t);
    if (off !== prev) {
      let lo = t - step;
      let hi = t;
      while (hi - lo > 60_000) {
        const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
        if (zoneOffsetMinutes(zone, mid) === prev) lo = mid;
        else hi = mid;
      }
      changes.push(`${hi / 60_000}:${off}`);
      const local = hi + prev * 60_000;
      const day = local - (local % DAY_MS);
      for (const d of [-1, 0, 1]) days.add(day + d * DAY_MS);
    }
    prev = off;
  }
  return { signature: changes.join(' '), days: [...days].sort((a, b) => a - b) };
}

describe('sweep: every IANA zone, 2025 and 2026, against a brute-force reference', () => {
  const from = Date.UTC(2025, 0, 1);
  const to = Date.UTC(2027, 0, 1);
  const slots = Array.from({ length: 48 }, (_, i) => ({ hour: Math.floor(i / 2), minute: (i % 2) * 30 }));

  test('the days around every offset change (one zone of each kind of changes), at every :00 and :30 (first occurrence of a repeated time, skipped times moved by the gap)', () => {
    let checked = 0;
    let zonesWithChanges = 0;
    const wrong: string[] = [];
    // Zones with the same offsets and changes to the minute answer alike: one of each kind is swept.
    const kinds = new Map<string, { zone: string; days: number[] }>();
    for (const zone of Intl.supportedValuesOf('timeZone')) {
      const { signature, days } = zoneChanges(zone, from, to);
      if (days.length) zonesWithChanges++;
      if (!kinds.has(signature)) kinds.set(signature, { zone, days });
    }
    for (const { zone, days } of kinds.values()) {
      for (const day of days) {
        for (const at of slots) {
          const wall = day + (at.hour * 60 + at.minute) * 60_000;
          const got = wallTimeToInstant(zone, day, at);
          const want = referenceInstant(zone, wall);
          if (got !== want) wrong.push(`${zone} ${new Date(wall).toISOString().slice(0, 16)} local: ${new Date(got).toISOString()}, reference ${new Date(want).toISOString()}`);
          checked++;
        }
      }
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    for (const [zone, offs] of offsetMemo) for (const off of offs.values()) if (off % 15 !== 0) throw new Error(`offset not in quarter hours: ${zone} ${off}`);
    expect(zonesWithChanges).toBeGreaterThan(100);
    expect(checked).toBeGreaterThan(3_000);
  }, 120_000);

  test('ordinary days of zones from -12 to +14, with 30- and 45-minute offsets and southern summers', () => {
    const wrong: string[] = [];
    const zones = ['Etc/GMT+12', 'Pacific/Pago_Pago', 'Pacific/Honolulu', 'America/Anchorage', 'America/Los_Angeles', 'America/Denver', 'America/Chicago', 'America/New_York', 'America/Santiago', 'America/St_Johns', 'America/Sao_Paulo', 'Atlantic/Azores', 'Europe/London', 'Europe/Brussels', 'Africa/Cairo', 'Europe/Moscow', 'Asia/Tehran', 'Asia/Dubai', 'Asia/Kabul', 'Asia/Kolkata', 'Asia/Kathmandu', 'Asia/Dhaka', 'Asia/Yangon', 'Asia/Bangkok', 'Asia/Shanghai', 'Australia/Eucla', 'Asia/Tokyo', 'Australia/Adelaide', 'Australia/Darwin', 'Australia/Sydney', 'Australia/Lord_Howe', 'Pacific/Norfolk', 'Pacific/Auckland', 'Pacific/Chatham', 'Pacific/Fiji', 'Pacific/Tongatapu', 'Pacific/Apia', 'Pacific/Kiritimati'];
    let checked = 0;
    for (const zone of zones) {
      for (let day = from; day < to; day += 47 * DAY_MS) {
        for (const at of slots) {
          const wall = day + (at.hour * 60 + at.minute) * 60_000;
          const got = wallTimeToInstant(zone, day, at);
          const want = referenceInstant(zone, wall);
          if (got !== want) wrong.push(`${zone} ${new Date(wall).toISOString().slice(0, 16)} local: ${new Date(got).toISOString()}, reference ${new Date(want).toISOString()}`);
          checked++;
        }
      }
      // The scheduler's path: each next run is the reference's instant of the following local day or later.
      const now = new Date(Date.UTC(2026, 2, 1));
      const next = nextSyncRun('2:30', zone, now)!;
      expect(next.getTime()).toBeGreaterThan(now.getTime());
    }
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(25_000);
  }, 120_000);
});
