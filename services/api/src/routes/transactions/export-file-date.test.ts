import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant } from '@pos/db';
import { ManualClock } from '@pos/kernel';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Export file names carry the merchant's date (its first location's zone), not the UTC one: at 00:30 on
 * 1 December in Brussels it is still 30 November in UTC.
 */
const NOW = new Date('2025-11-30T23:30:00Z');

let api: TestApi;
let brussels: DemoSeedResult;
let newYork: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi({ clock: new ManualClock(NOW) });
  brussels = await api.seed('export-date-bru');
  newYork = await api.seed('export-date-nyc');
  // The merchant's first location (created first) is in New York; its other one stays in Brussels.
  const [first] = newYork.locations;
  await bindTenant(api.deps.db, newYork.merchant.tenant_database).updateTable('locations').set({ timezone: 'America/New_York', created_at: new Date('2020-01-01T00:00:00Z') }).where('id', '=', first!.id).execute();
});
afterAll(() => api.close());

async function fileNames(m: DemoSeedResult): Promise<string[]> {
  const token = await api.ownerToken(m);
  const calls = [
    api.call('GET', '/api/back-office/transactions/export', { token }),
    api.call('POST', '/api/back-office/settings/locations/export', { token, body: {} }),
    api.call('GET', '/api/back-office/items/export', { token }),
    api.call('GET', '/api/back-office/customers/export', { token }),
  ];
  const out: string[] = [];
  for (const r of await Promise.all(calls)) {
    expect(r.status).toBe(200);
    out.push(r.headers.get('content-disposition')!);
  }
  return out;
}

describe('export file names', () => {
  test("are dated on the merchant's calendar (its first location's zone), not UTC's", async () => {
    // Before: transactions-2025-11-30.csv and so on (the UTC date).
    expect(await fileNames(brussels)).toEqual([
      'attachment; filename="transactions-2025-12-01.csv"',
      'attachment; filename="locations-2025-12-01.csv"',
      'attachment; filename="items-2025-12-01.csv"',
      'attachment; filename="customers-2025-12-01.csv"',
    ]);
    // 18:30 on 30 November in New York (its other location, in Brussels, is already on 1 December).
    expect(await fileNames(newYork)).toEqual([
      'attachment; filename="transactions-2025-11-30.csv"',
      'attachment; filename="locations-2025-11-30.csv"',
      'attachment; filename="items-2025-11-30.csv"',
      'attachment; filename="customers-2025-11-30.csv"',
    ]);
  });
});
