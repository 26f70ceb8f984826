import { describe, expect, test } from 'bun:test';
import { lateOpenCount, localHour, percentile, prepStats, prepStatsByHour } from './kds-metrics.ts';

const at = (iso: string) => new Date(iso);
const t = (queued: string, ready: string | null) => ({ queuedAt: at(queued), readyAt: ready ? at(ready) : null });
const MIN = 60_000;

describe('percentile (nearest rank)', () => {
  test('empty is null; p90 of ten values is the ninth; of one value that value', () => {
    expect(percentile([], 90)).toBeNull();
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 90)).toBe(10);
  });
});

describe('prepStats', () => {
  test('average, p90 and late from queued-to-ready times; unready tickets are not counted', () => {
    const s = prepStats(
      [t('2026-11-23T12:00:00Z', '2026-11-23T12:05:00Z'), t('2026-11-23T12:00:00Z', '2026-11-23T12:10:00Z'), t('2026-11-23T12:00:00Z', '2026-11-23T12:30:00Z'), t('2026-11-23T12:00:00Z', null)],
      15 * MIN,
    );
    expect(s).toEqual({ orders: 3, average_prep_seconds: 900, p90_prep_seconds: 1800, late_orders: 1 });
  });
  test('no tickets: zero orders and null times', () => {
    expect(prepStats([], MIN)).toEqual({ orders: 0, average_prep_seconds: null, p90_prep_seconds: null, late_orders: 0 });
  });
});

describe('hours in the location\'s zone', () => {
  test('Brussels in winter is UTC+1; across the day boundary', () => {
    expect(localHour(at('2026-11-23T12:30:00Z'), 'Europe/Brussels')).toBe(13);
    expect(localHour(at('2026-11-23T23:30:00Z'), 'Europe/Brussels')).toBe(0);
    expect(localHour(at('2026-07-01T12:30:00Z'), 'Europe/Brussels')).toBe(14);
  });
  test('grouped by the local hour of becoming ready, ascending, empty hours left out', () => {
    const rows = prepStatsByHour(
      [t('2026-11-23T12:50:00Z', '2026-11-23T13:02:00Z'), t('2026-11-23T11:00:00Z', '2026-11-23T11:04:00Z'), t('2026-11-23T13:00:00Z', '2026-11-23T13:20:00Z'), t('2026-11-23T13:00:00Z', null)],
      'Europe/Brussels',
      15 * MIN,
    );
    expect(rows).toEqual([
      { hour: 12, orders: 1, average_prep_seconds: 240, p90_prep_seconds: 240, late_orders: 0 },
      { hour: 14, orders: 2, average_prep_seconds: 960, p90_prep_seconds: 1200, late_orders: 1 },
    ]);
  });
});

describe('lateOpenCount', () => {
  test('open tickets waiting longer than the threshold', () => {
    const now = at('2026-11-23T12:20:00Z');
    expect(lateOpenCount([t('2026-11-23T12:00:00Z', null), t('2026-11-23T12:10:00Z', null), t('2026-11-23T11:00:00Z', '2026-11-23T11:05:00Z')], now, 15 * MIN)).toBe(1);
  });
});
