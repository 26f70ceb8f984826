/**
 * The daily auto-sync schedule (spec 1 "Auto-sync schedule payload", rules 1-7) against the real
 * PostgreSQL: the write path's zone resolution, the scheduler's claim (FOR UPDATE SKIP LOCKED, one job
 * per due run even with two workers), the sync job through outbox, relay, bee-queue and handler, and the
 * one-time rule 7 reinterpretation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, createDatabase, reinterpretLegacySyncTimes, type DatabaseHandle } from '@pos/db';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { autoSyncStatus, claimDueAutoSyncs, validateAutoSyncPayload, writeAutoSync, type AutoSyncTarget } from '@pos/core/integrations/auto-sync';
import { AppError } from '@pos/kernel';
import { TEST_ENV } from '../../api/src/testing/harness.ts';
import { startWorker, type RunningWorker } from './worker.ts';
import { syncClientsFromEnv } from '@pos/core/integrations/sync-runners';
import { startPlatformASimulator } from '@pos/providers/platform-a/platform-a-simulator';
import { startDeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { startDeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createIntegrationAutoSyncHandler } from './jobs/integration-auto-sync.handler.ts';
import { devLogDriver } from './notifications/driver.ts';
import { startRegisterASimulator } from '@pos/providers/register-a/register-a-simulator';
import { saveRegisterAToken, selectRegisterAStore } from '@pos/core/integrations/register-a-admin';
import { registerARecord } from '@pos/core/integrations/register-a-records';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { dropPrefix, openTestEnv, TEST_DATABASE_URL, TEST_REDIS_URL, testFiscal, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

let env: TestEnv;
let m: DemoSeedResult;
let second: DatabaseHandle;
const prefixes: string[] = [];

beforeAll(async () => {
  env = await openTestEnv();
  second = createDatabase(TEST_DATABASE_URL, { max: 3, applicationName: 'worker-test-2' });
  m = await seedDemo(env.handle.db, { slug: `autosync-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: TEST_ENV.DEVICE_API_KEY, pinPepper: TEST_ENV.PIN_PEPPER });
});

afterAll(async () => {
  if (m) await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await second?.close();
  await env.close();
});

async function connection(provider: string, locationId: string | null = null, settings: Record<string, unknown> = {}): Promise<AutoSyncTarget> {
  const id = Bun.randomUUIDv7();
  await env.handle.db
    .insertInto('integration_connections')
    .values({ id, provider, external_ref: `ref-${id}`, merchant_id: m.merchant.id, location_id: locationId, settings: JSON.stringify(settings), created_at: new Date(), updated_at: new Date() })
    .execute();
  return { connectionId: id, merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, provider, locationId };
}

const row = (id: string) => env.handle.db.selectFrom('integration_auto_syncs').selectAll().where('connection_id', '=', id).executeTakeFirst();
const jobsFor = async (id: string) =>
  Number((await sql<{ n: string }>`select count(*) as n from outbox where job = 'integration.auto-sync' and payload->>'connectionId' = ${id}`.execute(env.handle.db)).rows[0]!.n);

function validationErrors(fn: () => void): Record<string, string[]> | null {
  try {
    fn();
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError & { errors?: Record<string, string[]> }).errors ?? (e as { details?: { errors?: Record<string, string[]> } }).details?.errors ?? {};
  }
}

describe('payload validation', () => {
  test('sync_time required on platform-a only, HH:MM with 00 or 30, zones IANA, enable_auto_sync platform-a only', () => {
    expect(validationErrors(() => validateAutoSyncPayload({}, { platformA: true }))).toEqual({ sync_time: ['The sync time field is required.'] });
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: null }, { platformA: true }))).toEqual({ sync_time: ['The sync time field is required.'] });
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: '7:30' }, { platformA: true }))).toBeNull();
    expect(validationErrors(() => validateAutoSyncPayload({}, { platformA: false }))).toBeNull();
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: null }, { platformA: false }))).toBeNull();
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: '07:15', sync_timezone: 'Mars/Base' }, { platformA: false }))).toEqual({
      sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'],
      sync_timezone: ['The sync timezone must be a valid timezone.'],
    });
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: '24:00' }, { platformA: false }))).toEqual({ sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'] });
    expect(validationErrors(() => validateAutoSyncPayload({ sync_time: '07:00', enable_auto_sync: true }, { platformA: false }))).toEqual({ enable_auto_sync: ['The enable auto sync field is prohibited.'] });
  });
});

describe('writing the schedule (rules 1-4, 6)', () => {
  const now = new Date('2026-06-01T10:00:00Z');

  test('status before any write: no time, the default zone, never null', async () => {
    const t = await connection('register-c');
    expect(await autoSyncStatus(env.handle.db, t)).toEqual({ sync_time: null, sync_timezone: 'Europe/Brussels', enable_auto_sync: false, next_sync_at: null, last_sync: null });
  });

  test('zone: request, else stored, else the first location with a zone; written only with a time; next run reset', async () => {
    const tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
    // The merchant's first location is in New York: the default chain picks it.
    await tdb.updateTable('locations').set({ timezone: 'America/New_York' }).where('id', '=', m.locations[0]!.id).execute();
    await tdb.updateTable('locations').set({ timezone: 'Asia/Tokyo', created_at: new Date(Date.now() + 60_000) }).where('id', '=', m.locations[1]!.id).execute();
    const t = await connection('register-b');
    expect(await writeAutoSync(env.handle.db, t, { sync_time: '6:30' }, now)).toEqual({ sync_time: '6:30', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null });
    await env.handle.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2026-06-02T10:30:00Z') }).where('connection_id', '=', t.connectionId).execute();
    // Omitted zone: the stored one is kept; the next run is reset.
    await writeAutoSync(env.handle.db, t, { sync_time: '08:00' }, now);
    expect(await row(t.connectionId)).toMatchObject({ sync_time: '08:00', sync_timezone: 'America/New_York', next_run_at: null });
    // Request zone wins.
    await writeAutoSync(env.handle.db, t, { sync_time: '08:00', sync_timezone: 'Europe/Paris' }, now);
    expect(await row(t.connectionId)).toMatchObject({ sync_timezone: 'Europe/Paris' });
    // Clearing the time keeps the stored zone, even with a zone in the request.
    await env.handle.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2026-06-02T06:00:00Z') }).where('connection_id', '=', t.connectionId).execute();
    expect(await writeAutoSync(env.handle.db, t, { sync_time: null, sync_timezone: 'Asia/Tokyo' }, now)).toEqual({ sync_time: null, sync_timezone: 'Europe/Paris', enable_auto_sync: false, next_sync_at: null, last_sync: null });
    expect(await row(t.connectionId)).toMatchObject({ sync_time: null, sync_timezone: 'Europe/Paris', next_run_at: null });
    expect((await autoSyncStatus(env.handle.db, t)).enable_auto_sync).toBe(false);
  });

  test('a location-scoped register-d provider defaults to its own location zone', async () => {
    const t = await connection('register-d:lightspeed', m.locations[1]!.id);
    expect((await writeAutoSync(env.handle.db, t, { sync_time: '23:00' }, now)).sync_timezone).toBe('Asia/Tokyo');
  });

  test('no location zone at all: Europe/Brussels; clearing on a first write stores no zone', async () => {
    const other = await seedDemo(env.handle.db, { slug: `autosync-b-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: TEST_ENV.DEVICE_API_KEY, pinPepper: TEST_ENV.PIN_PEPPER });
    try {
      await sql`update ${sql.id(other.merchant.tenant_database, 'locations')} set timezone = ''`.execute(env.handle.db);
      const id = Bun.randomUUIDv7();
      await env.handle.db
        .insertInto('integration_connections')
        .values({ id, provider: 'register-c', external_ref: `ref-${id}`, merchant_id: other.merchant.id, settings: JSON.stringify({}), created_at: now, updated_at: now })
        .execute();
      const t = { connectionId: id, merchantId: other.merchant.id, tenantDatabase: other.merchant.tenant_database, provider: 'register-c', locationId: null };
      await writeAutoSync(env.handle.db, t, { sync_time: null, sync_timezone: 'Asia/Tokyo' }, now);
      expect(await row(id)).toMatchObject({ sync_time: null, sync_timezone: null });
      expect((await writeAutoSync(env.handle.db, t, { sync_time: '05:00' }, now)).sync_timezone).toBe('Europe/Brussels');
    } finally {
      await dropMerchant(env.handle.db, { id: other.merchant.id, tenant_database: other.merchant.tenant_database });
    }
  });
});

describe('the scheduler claim (rule 5)', () => {
  test('an unset next run is computed in the stored zone; a due one starts one job and moves strictly after now', async () => {
    const t = await connection('platform-a');
    await writeAutoSync(env.handle.db, t, { sync_time: '02:30', sync_timezone: 'Europe/Brussels' }, new Date('2026-03-28T00:00:00Z'));
    // Before the spring change: next run is 02:30 CET on the 28th.
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-28T00:00:00Z'));
    expect((await row(t.connectionId))!.next_run_at?.toISOString()).toBe('2026-03-28T01:30:00.000Z');
    expect(await jobsFor(t.connectionId)).toBe(0);
    // Not due yet: nothing.
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-28T01:29:59Z'));
    expect(await jobsFor(t.connectionId)).toBe(0);
    // Due: one job, next run on the 29th where 02:30 does not exist (03:30 CEST).
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-28T01:30:00Z'));
    expect(await jobsFor(t.connectionId)).toBe(1);
    expect((await row(t.connectionId))!.next_run_at?.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-28T01:31:00Z'));
    expect(await jobsFor(t.connectionId)).toBe(1);
    // Late pass (worker was down): one job, next run after now.
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-30T12:00:00Z'));
    expect(await jobsFor(t.connectionId)).toBe(2);
    expect((await row(t.connectionId))!.next_run_at?.toISOString()).toBe('2026-03-31T00:30:00.000Z');
    // A write resets it: no job, recomputed.
    await writeAutoSync(env.handle.db, t, { sync_time: '04:00' }, new Date('2026-03-30T12:00:00Z'));
    await claimDueAutoSyncs(env.handle.db, new Date('2026-03-30T12:00:00Z'));
    expect(await jobsFor(t.connectionId)).toBe(2);
    expect((await row(t.connectionId))!.next_run_at?.toISOString()).toBe('2026-03-31T02:00:00.000Z');
  });

  test('a cleared time or a disabled schedule is never claimed', async () => {
    const t = await connection('register-c');
    await writeAutoSync(env.handle.db, t, { sync_time: null }, new Date('2026-06-01T00:00:00Z'));
    const p = await connection('platform-a');
    await writeAutoSync(env.handle.db, p, { sync_time: '05:00', enable_auto_sync: false }, new Date('2026-06-01T00:00:00Z'));
    await claimDueAutoSyncs(env.handle.db, new Date('2026-06-05T00:00:00Z'));
    expect((await row(t.connectionId))!.next_run_at).toBeNull();
    expect((await row(p.connectionId))!.next_run_at).toBeNull();
  });

  test('two workers claiming at once never start one run twice (SKIP LOCKED)', async () => {
    const targets = await Promise.all(Array.from({ length: 6 }, () => connection('register-b')));
    for (const t of targets) {
      await writeAutoSync(env.handle.db, t, { sync_time: '07:00', sync_timezone: 'America/New_York' }, new Date('2026-11-01T00:00:00Z'));
      await env.handle.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2026-11-01T12:00:00Z') }).where('connection_id', '=', t.connectionId).execute();
    }
    const at = new Date('2026-11-01T12:00:00Z');
    for (let round = 0; round < 3; round++) await Promise.all([claimDueAutoSyncs(env.handle.db, at, 2), claimDueAutoSyncs(second.db, at, 2), claimDueAutoSyncs(env.handle.db, at), claimDueAutoSyncs(second.db, at)]);
    for (const t of targets) {
      expect(await jobsFor(t.connectionId)).toBe(1);
      // After New York's autumn change: 07:00 EST.
      expect((await row(t.connectionId))!.next_run_at?.toISOString()).toBe('2026-11-02T12:00:00.000Z');
    }
  });
});

describe('two running workers', () => {
  test('a due sync calls the provider (platform-a simulator over HTTP) once through outbox, relay, bee-queue and the handler', async () => {
    const t = await connection('platform-a');
    await writeAutoSync(env.handle.db, t, { sync_time: '09:30', sync_timezone: 'Europe/Brussels' }, new Date());
    // Due a moment ago.
    await env.handle.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date(Date.now() - 1000) }).where('connection_id', '=', t.connectionId).execute();
    const sim = startPlatformASimulator({ accessToken: 'autosync-platform-a-token' });
    const integrations = syncClientsFromEnv({ PLATFORM_A_BASE_URL: sim.url, PLATFORM_A_ACCESS_TOKEN: 'autosync-platform-a-token' });
    const workers: RunningWorker[] = [];
    try {
      for (const db of [env.handle.db, second.db]) {
        const prefix = uniquePrefix();
        prefixes.push(prefix);
        workers.push(
          await startWorker({ db, redis: env.redis, redisUrl: TEST_REDIS_URL, log: env.log, prefix, heartbeatMs: 3_600_000, relayIntervalMs: 50, fiscal: testFiscal(env.log), fiscalRecoverMs: 0, autoSyncMs: 30, integrations }),
        );
      }
      const done = await waitFor(async () => (await row(t.connectionId))?.last_finished_at ?? undefined, 8000, 'auto-sync run');
      expect(done).toBeInstanceOf(Date);
      const visible = await bindTenant(env.handle.db, m.merchant.tenant_database).selectFrom('items').select('id').where('visible', '=', true).execute();
      expect(visible.length).toBeGreaterThan(0);
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'ok', last_error: null, last_counts: { items: visible.length }, attempts: 1 });
      expect(sim.catalog.size).toBe(visible.length);
      await Bun.sleep(300);
      // One call at the provider, one job, the next run moved after now.
      expect(sim.catalogUpserts.filter((k) => k.startsWith(`sync-${t.connectionId}-`))).toHaveLength(1);
      expect(await jobsFor(t.connectionId)).toBe(1);
      expect((await row(t.connectionId))!.next_run_at!.getTime()).toBeGreaterThan(Date.now());
      // The status payload shows the outcome; the connection's log has the run.
      const status = await autoSyncStatus(env.handle.db, t);
      expect(status.last_sync).toEqual({ status: 'ok', error: null, counts: { items: visible.length }, finished_at: done.toISOString() });
      const logged = await env.handle.db.selectFrom('integration_events').select(['kind', 'event_type', 'status', 'external_id']).where('connection_id', '=', t.connectionId).execute();
      expect(logged).toEqual([{ kind: 'sync', event_type: 'auto_sync', status: 'done', external_id: `items=${visible.length}` }]);
    } finally {
      for (const w of workers) await w.stop();
      await sim.stop();
    }
  });
});

describe('the provider runs (sync-runners)', () => {
  const ctx = () => ({ db: env.handle.db, log: env.log, clock: { now: () => new Date() }, notifications: devLogDriver(env.log), jobId: 'test' });
  const due = async (t: AutoSyncTarget) => {
    await writeAutoSync(env.handle.db, t, { sync_time: '05:00', sync_timezone: 'Europe/Brussels' }, new Date());
    return { connectionId: t.connectionId, provider: t.provider, scheduledFor: '2026-06-01T03:00:00.000Z' };
  };

  test('delivery-a: menu then availability pushed to the store once; a second delivery of the job does not run it again', async () => {
    const sim = startDeliveryASimulator({ apiToken: 'autosync-delivery-a' });
    try {
      sim.addStore('da-store-1').integrationEnabled = true;
      const t = await connection('delivery-a', m.locations[0]!.id);
      await env.handle.db.updateTable('integration_connections').set({ external_ref: 'da-store-1' }).where('id', '=', t.connectionId).execute();
      const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({ DELIVERY_A_API_URL: sim.url, DELIVERY_A_API_TOKEN: 'autosync-delivery-a' }));
      const payload = await due(t);
      await handler(payload, ctx());
      await handler(payload, ctx());
      const store = sim.stores.get('da-store-1')!;
      expect(store.menuPushes).toBe(1);
      expect(store.availabilityPushes).toBe(1);
      const items = store.menu!.items.length;
      expect(items).toBeGreaterThan(0);
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'ok', last_counts: { items, availability: items }, attempts: 1 });
    } finally {
      await sim.stop();
    }
  });

  test('a run cut short after it recorded its start (worker killed, database gone) runs again on redelivery: yesterday\'s ok is not this instant\'s', async () => {
    const sim = startDeliveryASimulator({ apiToken: 'autosync-delivery-a' });
    try {
      sim.addStore('da-store-cut').integrationEnabled = true;
      const t = await connection('delivery-a', m.locations[0]!.id);
      await env.handle.db.updateTable('integration_connections').set({ external_ref: 'da-store-cut' }).where('id', '=', t.connectionId).execute();
      const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({ DELIVERY_A_API_URL: sim.url, DELIVERY_A_API_TOKEN: 'autosync-delivery-a' }));
      const day1 = await due(t);
      await handler(day1, ctx());
      expect(sim.stores.get('da-store-cut')!.menuPushes).toBe(1);
      // Day 2's first run wrote its start, then died before its outcome (what the handler's first statement writes).
      const day2 = { ...day1, scheduledFor: new Date(new Date(day1.scheduledFor).getTime() + 86_400_000).toISOString() };
      await env.handle.db.updateTable('integration_auto_syncs').set({ last_run_at: new Date(Date.now() + 1000), last_scheduled_for: new Date(day2.scheduledFor), attempts: 1 }).where('connection_id', '=', t.connectionId).execute();
      // Before: last_status was still day 1's 'ok', so the redelivery logged "already ran" and day 2 was never pushed.
      await handler(day2, { ...ctx(), clock: { now: () => new Date(Date.now() + 2000) } });
      expect(sim.stores.get('da-store-cut')!.menuPushes).toBe(2);
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'ok', attempts: 2, last_scheduled_for: new Date(day2.scheduledFor) });
      // Finished now: a further delivery of day 2 does not run it again.
      await handler(day2, { ...ctx(), clock: { now: () => new Date(Date.now() + 3000) } });
      expect(sim.stores.get('da-store-cut')!.menuPushes).toBe(2);
    } finally {
      await sim.stop();
    }
  });

  test('an unreachable provider is recorded and the job throws (retried with backoff); the retry that succeeds is recorded', async () => {
    const sim = startDeliveryBSimulator({ apiToken: 'autosync-delivery-b' });
    const url = sim.url;
    try {
      sim.addStore('db-store-1').integrationEnabled = true;
      const t = await connection('delivery-b', m.locations[0]!.id);
      await env.handle.db.updateTable('integration_connections').set({ external_ref: 'db-store-1' }).where('id', '=', t.connectionId).execute();
      const payload = await due(t);
      const down = createIntegrationAutoSyncHandler(syncClientsFromEnv({ DELIVERY_B_API_URL: 'http://127.0.0.1:9', DELIVERY_B_API_TOKEN: 'autosync-delivery-b' }));
      await expect(down(payload, ctx())).rejects.toThrow('will be retried');
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'error', last_error: 'delivery-b could not be reached.', last_counts: null, attempts: 1 });
      const up = createIntegrationAutoSyncHandler(syncClientsFromEnv({ DELIVERY_B_API_URL: url, DELIVERY_B_API_TOKEN: 'autosync-delivery-b' }));
      await up(payload, ctx());
      expect(sim.stores.get('db-store-1')!.menuPushes).toBe(1);
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'ok', last_error: null, attempts: 2 });
    } finally {
      await sim.stop();
    }
  });

  test('platform-a: a catalog larger than one page is pushed whole (5,100 visible items, in pages), counts recorded', async () => {
    // A merchant of its own: the other runs here read the shared merchant's catalog.
    const big = await seedDemo(env.handle.db, { slug: `autosync-big-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: TEST_ENV.DEVICE_API_KEY, pinPepper: TEST_ENV.PIN_PEPPER });
    const sim = startPlatformASimulator({ accessToken: 'autosync-platform-a-big' });
    try {
      const items = sql.id(big.merchant.tenant_database, 'items');
      const visibleBefore = (await bindTenant(env.handle.db, big.merchant.tenant_database).selectFrom('items').select('id').where('visible', '=', true).execute()).length;
      // Copies of one seeded item under new ids and names (sku cleared: it is unique).
      await sql`insert into ${items} select (jsonb_populate_record(null::${items}, to_jsonb(i) || jsonb_build_object('id', gen_random_uuid(), 'name', 'Bulk ' || lpad(g::text, 5, '0'), 'sku', null, 'visible', true))).*
        from ${items} i, generate_series(1, 5100) g where i.id = (select id from ${items} order by name limit 1)`.execute(env.handle.db);
      const id = Bun.randomUUIDv7();
      await env.handle.db
        .insertInto('integration_connections')
        .values({ id, provider: 'platform-a', external_ref: `ref-${id}`, merchant_id: big.merchant.id, location_id: null, settings: '{}', created_at: new Date(), updated_at: new Date() })
        .execute();
      const t: AutoSyncTarget = { connectionId: id, merchantId: big.merchant.id, tenantDatabase: big.merchant.tenant_database, provider: 'platform-a', locationId: null };
      const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({ PLATFORM_A_BASE_URL: sim.url, PLATFORM_A_ACCESS_TOKEN: 'autosync-platform-a-big' }));
      await handler(await due(t), ctx());
      const total = visibleBefore + 5100;
      expect(sim.catalog.size).toBe(total);
      expect(await row(id)).toMatchObject({ last_status: 'ok', last_error: null, last_counts: { items: total }, attempts: 1 });
      // Pages of 1,000, each its own call with its own idempotency key.
      const calls = sim.catalogUpserts.filter((k) => k.startsWith(`sync-${id}-`));
      expect(calls).toHaveLength(Math.ceil(total / 1000));
      expect(new Set(calls).size).toBe(calls.length);
    } finally {
      await sim.stop();
      await dropMerchant(env.handle.db, { id: big.merchant.id, tenant_database: big.merchant.tenant_database });
    }
  });

  test('register-a: the location catalog synced to the store over HTTP (rows created with reference, counts recorded)', async () => {
    const KEY = 'ef'.repeat(32);
    const regA = startRegisterASimulator({ keys: { prod: 'autosync-prod-key', staging: 'autosync-staging-key' } });
    try {
      const setup = regA.setup();
      const tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
      const admin = { central: env.handle.db, tdb, merchantId: m.merchant.id, config: { baseUrl: regA.url, tokenKey: parseTokenKey(KEY)! }, now: () => new Date() };
      const loc = m.locations[1]!.id;
      await saveRegisterAToken(admin, loc, setup.token, 'enable');
      await selectRegisterAStore(admin, loc, setup.storeIds[0]!);
      const rec = (await registerARecord(env.handle.db, m.merchant.id, loc))!;
      const t = { connectionId: rec.id, merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, provider: 'register-a', locationId: loc };
      const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({ REGISTER_A_BASE_URL: regA.url, INTEGRATION_TOKEN_KEY: KEY }));
      await handler(await due(t), ctx());
      const ours = await tdb.selectFrom('items').select('id').where((eb) => eb.or([eb('location_ids', 'is', null), sql<boolean>`${loc}::uuid = any(location_ids)`])).execute();
      const rows = regA.items(setup.companyId).filter((i) => i.reference.startsWith('pos:'));
      expect(rows).toHaveLength(ours.length);
      expect(await row(t.connectionId)).toMatchObject({ last_status: 'ok', last_error: null, attempts: 1 });
      expect((await row(t.connectionId))!.last_counts).toMatchObject({ created: ours.length, updated: 0, deleted: 0 });
    } finally {
      await regA.stop();
    }
  });

  test('providers without a wired client record not configured, and nothing is retried', async () => {
    const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({}));
    for (const provider of ['register-c', 'register-b', 'register-d:lightspeed', 'delivery-a']) {
      const t = await connection(provider, m.locations[0]!.id);
      await handler(await due(t), ctx());
      expect((await row(t.connectionId))!.last_status).toBe('not_configured');
    }
  });
});

describe('rule 7: the one-time reinterpretation', () => {
  test('a UTC sync_time without zone is read in the resolved zone and snapped; zoned rows are untouched', async () => {
    const at = new Date('2026-01-15T12:00:00Z');
    // The merchant's first location is New York (set above): 14:10 UTC is 09:10 EST, snapped to 09:00.
    const legacy = await connection('register-c', null, { sync_time: '14:10' });
    const bare = await connection('register-b');
    await env.handle.db.insertInto('integration_auto_syncs').values({ connection_id: bare.connectionId, merchant_id: m.merchant.id, provider: 'register-b', sync_time: '05:20', sync_timezone: null, next_run_at: new Date(), updated_at: at }).execute();
    const zoned = await connection('register-c', null, { sync_time: '14:10', sync_timezone: 'Europe/Brussels' });
    const dLoc = await connection('register-d:lightspeed', m.locations[1]!.id);
    await env.handle.db.insertInto('integration_auto_syncs').values({ connection_id: dLoc.connectionId, merchant_id: m.merchant.id, provider: 'register-d:lightspeed', sync_time: '15:00', sync_timezone: null, updated_at: at }).execute();
    expect(await reinterpretLegacySyncTimes(env.handle.db, at)).toBeGreaterThanOrEqual(3);
    expect(await row(legacy.connectionId)).toMatchObject({ sync_time: '09:00', sync_timezone: 'America/New_York', next_run_at: null });
    // 05:20 UTC is 00:20 EST, snapped to 00:30.
    expect(await row(bare.connectionId)).toMatchObject({ sync_time: '00:30', sync_timezone: 'America/New_York', next_run_at: null });
    // register-d at its Tokyo location: 15:00 UTC is 00:00 the next day there.
    expect(await row(dLoc.connectionId)).toMatchObject({ sync_time: '00:00', sync_timezone: 'Asia/Tokyo' });
    expect(await row(zoned.connectionId)).toBeUndefined();
    // Once: a second pass changes nothing of these.
    await reinterpretLegacySyncTimes(env.handle.db, new Date('2026-07-15T12:00:00Z'));
    expect(await row(legacy.connectionId)).toMatchObject({ sync_time: '09:00' });
    expect(await row(bare.connectionId)).toMatchObject({ sync_time: '00:30' });
  });
});
