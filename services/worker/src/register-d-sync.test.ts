/**
 * The worker's scheduled sync of a `register-d:<vendor>` connection (issue 17 item 4): the
 * integration.auto-sync handler picks the register-d runner, which pushes the location's menu through
 * the transport simulator (over HTTP) and records the counts; a transport down is recorded and retried.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { writeAutoSync } from '@pos/core/integrations/auto-sync';
import { deliveryMenuItems } from '@pos/core/integrations/delivery-menu';
import { saveRegisterD } from '@pos/core/integrations/register-d-admin';
import { syncClientsFromEnv } from '@pos/core/integrations/sync-runners';
import { RegisterDClient } from '@pos/providers/register-d/register-d-client';
import { startRegisterDSimulator, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import { TEST_ENV } from '../../api/src/testing/harness.ts';
import { createIntegrationAutoSyncHandler } from './jobs/integration-auto-sync.handler.ts';
import { devLogDriver } from './notifications/driver.ts';
import { openTestEnv, type TestEnv } from './test-support.ts';

const TOKEN = 'worker-register-d-token';
let env: TestEnv;
let m: DemoSeedResult;
let sim: RegisterDSimulator;

beforeAll(async () => {
  env = await openTestEnv();
  sim = startRegisterDSimulator({ apiToken: TOKEN });
  sim.addSite('vendor-a', 'wd-1', 'Worker till');
  m = await seedDemo(env.handle.db, { slug: `regd-sync-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: TEST_ENV.DEVICE_API_KEY, pinPepper: TEST_ENV.PIN_PEPPER });
});
afterAll(async () => {
  if (m) await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await sim?.stop();
  await env.close();
});

const row = (id: string) => env.handle.db.selectFrom('integration_auto_syncs').selectAll().where('connection_id', '=', id).executeTakeFirst();
const ctx = () => ({ db: env.handle.db, log: env.log, clock: { now: () => new Date() }, notifications: devLogDriver(env.log), jobId: 'test' });

describe('register-d sync runner', () => {
  test('a register-d:vendor-a connection: the menu pushed through the transport, counts recorded; down is retried', async () => {
    const loc = m.locations[0]!.id;
    const scope = { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: loc, vendor: 'vendor-a' };
    const client = new RegisterDClient({ baseUrl: sim.url, apiToken: TOKEN });
    await saveRegisterD(env.handle.db, () => client, scope, { site_id: 'wd-1', link_code: sim.site('vendor-a', 'wd-1')!.linkCode }, new Date());
    const conn = await env.handle.db.selectFrom('integration_connections').select(['id', 'provider']).where('merchant_id', '=', m.merchant.id).executeTakeFirstOrThrow();
    expect(conn.provider).toBe('register-d:vendor-a');
    const target = { connectionId: conn.id, merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, provider: conn.provider, locationId: loc };
    await writeAutoSync(env.handle.db, target, { sync_time: '05:00' }, new Date());
    const payload = { connectionId: conn.id, provider: conn.provider, scheduledFor: '2026-06-01T03:00:00.000Z' };
    const handler = createIntegrationAutoSyncHandler(syncClientsFromEnv({ REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN, REGISTER_D_VENDORS: 'vendor-a,vendor-b' }));

    sim.failWith = 502;
    try {
      await expect(handler(payload, ctx())).rejects.toThrow('will be retried');
    } finally {
      sim.failWith = null;
    }
    expect(await row(conn.id)).toMatchObject({ last_status: 'error', last_error: 'register-d could not be reached.', last_counts: null, attempts: 1 });

    await handler(payload, ctx());
    const items = (await deliveryMenuItems(bindTenant(env.handle.db, m.merchant.tenant_database), loc)).length;
    expect(items).toBeGreaterThan(0);
    expect(sim.site('vendor-a', 'wd-1')).toMatchObject({ linkedRef: loc, menuPushes: 1 });
    expect(await row(conn.id)).toMatchObject({ last_status: 'ok', last_error: null, last_counts: { items, created: items, updated: 0, removed: 0 }, attempts: 2 });
    // The same instant again does not run twice.
    await handler(payload, ctx());
    expect(sim.site('vendor-a', 'wd-1')!.menuPushes).toBe(1);
    const logged = await env.handle.db.selectFrom('integration_events').select(['event_type', 'status', 'external_id']).where('connection_id', '=', conn.id).where('kind', '=', 'sync').orderBy('created_at').execute();
    expect(logged).toEqual([
      { event_type: 'auto_sync', status: 'failed', external_id: 'register-d could not be reached.' },
      { event_type: 'auto_sync', status: 'done', external_id: `items=${items} created=${items} updated=0 removed=0` },
    ]);
  });

  test('a vendor the configuration does not list is a final error; no transport configured is not_configured', async () => {
    const id = Bun.randomUUIDv7();
    await env.handle.db
      .insertInto('integration_connections')
      .values({ id, provider: 'register-d:vendor-q', external_ref: `ref-${id}`, merchant_id: m.merchant.id, location_id: m.locations[1]!.id, settings: '{}', created_at: new Date(), updated_at: new Date() })
      .execute();
    const target = { connectionId: id, merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, provider: 'register-d:vendor-q', locationId: m.locations[1]!.id };
    await writeAutoSync(env.handle.db, target, { sync_time: '05:00' }, new Date());
    const payload = { connectionId: id, provider: 'register-d:vendor-q', scheduledFor: '2026-06-01T03:00:00.000Z' };
    await createIntegrationAutoSyncHandler(syncClientsFromEnv({ REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN }))(payload, ctx());
    expect(await row(id)).toMatchObject({ last_status: 'error', last_error: 'The register-d vendor "vendor-q" is not configured (REGISTER_D_VENDORS).' });
    await createIntegrationAutoSyncHandler(syncClientsFromEnv({}))({ ...payload, scheduledFor: '2026-06-02T03:00:00.000Z' }, ctx());
    expect(await row(id)).toMatchObject({ last_status: 'not_configured', last_error: 'register-d is not configured (REGISTER_D_API_URL, REGISTER_D_API_TOKEN).' });
  });

  test('a failure whose message is past the 200 characters of a log line: recorded, the log line cut (before: the run rolled back and was retried)', async () => {
    const id = Bun.randomUUIDv7();
    const vendor = `vendor-${'q'.repeat(220)}`;
    await env.handle.db
      .insertInto('integration_connections')
      .values({ id, provider: `register-d:${vendor}`, external_ref: `ref-${id}`, merchant_id: m.merchant.id, location_id: m.locations[1]!.id, settings: '{}', created_at: new Date(), updated_at: new Date() })
      .execute();
    const target = { connectionId: id, merchantId: m.merchant.id, tenantDatabase: m.merchant.tenant_database, provider: `register-d:${vendor}`, locationId: m.locations[1]!.id };
    await writeAutoSync(env.handle.db, target, { sync_time: '05:00' }, new Date());
    const payload = { connectionId: id, provider: `register-d:${vendor}`, scheduledFor: '2026-06-01T03:00:00.000Z' };
    await createIntegrationAutoSyncHandler(syncClientsFromEnv({ REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN }))(payload, ctx());
    const message = `The register-d vendor "${vendor}" is not configured (REGISTER_D_VENDORS).`;
    expect(await row(id)).toMatchObject({ last_status: 'error', last_error: message });
    const logged = await env.handle.db.selectFrom('integration_events').select(['status', 'external_id']).where('connection_id', '=', id).execute();
    expect(logged).toEqual([{ status: 'failed', external_id: message.slice(0, 200) }]);
  });
});
