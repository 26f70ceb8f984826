import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, signIn } from '../pos-tills/register-test-support.ts';
import { PLACEHOLDER_MAC_MESSAGE } from './index.ts';
import { clearThrottles } from '@pos/kernel';

/** Adversarial probes of test prints (throttled per printer and per kiosk) and placeholder MACs in discovery reports. */
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let pos: string;
let kiosk: string;
let macNo = 0x30;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('tprint-adv');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  pos = await api.deviceToken(m, 'pos');
  kiosk = await api.deviceToken(m, 'kiosk');
}, 60_000);
afterAll(() => api.close());

const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const discover = (printers: unknown[], token = pos, path = '/api/pos/printers/discovery-report') => api.call('POST', path, { token, deviceKey: true, body: { printers } });
const jobsOf = (printerId: string) => tdb.selectFrom('print_jobs').select('id').where('printer_id', '=', printerId).execute();
const printerCount = async () => (await tdb.selectFrom('printers').select('id').execute()).length;

/** A receipt printer at the register's location, discovered and configured. */
async function receiptPrinter(): Promise<string> {
  const mac = `00:11:62:AA:BB:${(macNo++).toString(16).toUpperCase().padStart(2, '0')}`;
  await clearThrottles(api.deps.redis); // the discovery throttle (4 a minute per device) is not what is tested here
  expect((await discover([{ mac }])).status).toBe(200);
  const id = (await tdb.selectFrom('printers').select('id').where('mac', '=', mac).executeTakeFirstOrThrow()).id;
  expect((await bo('POST', `/devices/${id}/printer/configure`, { name: `Counter ${mac.slice(-2)}` })).status).toBe(200);
  return id;
}

describe('test prints are throttled', () => {
  test('a printer takes 5 test prints a minute, from the register and the back office together; the 6th is 429 and queues nothing', async () => {
    const id = await receiptPrinter();
    const manager = await signIn(api, m, 'manager', 0);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(manager, 'POST', `/pos/printers/${id}/test-print`)).status);
    for (let i = 0; i < 2; i++) statuses.push((await bo('POST', `/devices/${id}/printer/test-print`)).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202]);
    const fromRegister = await call(manager, 'POST', `/pos/printers/${id}/test-print`);
    expect(fromRegister).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.', retry_after: expect.any(Number) } });
    expect((await bo('POST', `/devices/${id}/printer/test-print`)).status).toBe(429);
    expect((await jobsOf(id)).length).toBe(5);
    // Another printer has its own allowance.
    const other = await receiptPrinter();
    expect((await bo('POST', `/devices/${other}/printer/test-print`)).status).toBe(202);
  });

  test('concurrent test prints of one printer: exactly 5 queued', async () => {
    const id = await receiptPrinter();
    const burst = await Promise.all(Array.from({ length: 12 }, () => bo('POST', `/devices/${id}/printer/test-print`)));
    expect(burst.filter((r) => r.status === 202).length).toBe(5);
    expect(burst.filter((r) => r.status === 429).length).toBe(7);
    expect((await jobsOf(id)).length).toBe(5);
  });

  test('an unknown printer is a 404 and uses no allowance', async () => {
    const missing = crypto.randomUUID();
    for (let i = 0; i < 7; i++) expect((await bo('POST', `/devices/${missing}/printer/test-print`)).status).toBe(404);
  });

  test('a kiosk takes 5 test prints a minute; the 6th is 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api.call('POST', '/api/kiosk/test-print-receipt', { token: kiosk, deviceKey: true })).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });
});

describe('placeholder MACs in discovery reports', () => {
  test('all zeros or broadcast (either separator, any case) is a 422 on that entry, nothing written from the batch', async () => {
    await clearThrottles(api.deps.redis);
    const before = await printerCount();
    const r = await discover([{ mac: '00:11:62:12:34:56' }, { mac: '00:00:00:00:00:00' }, { mac: 'ff-ff-ff-ff-ff-ff' }, { mac: 'FF:FF:FF:FF:FF:ff' }]);
    expect(r).toEqual(
      expect.objectContaining({
        status: 422,
        body: { message: `${PLACEHOLDER_MAC_MESSAGE} (and 2 more errors)`, errors: { 'printers.1.mac': [PLACEHOLDER_MAC_MESSAGE], 'printers.2.mac': [PLACEHOLDER_MAC_MESSAGE], 'printers.3.mac': [PLACEHOLDER_MAC_MESSAGE] } },
      }),
    );
    expect(await printerCount()).toBe(before);
    const fromKiosk = await discover([{ mac: '00-00-00-00-00-00' }], kiosk, '/api/kiosk/printers/discovery-report');
    expect(fromKiosk).toMatchObject({ status: 422, body: { errors: { 'printers.0.mac': [PLACEHOLDER_MAC_MESSAGE] } } });
    expect(await printerCount()).toBe(before);
  });

  test('a real MAC that merely starts or ends with zeros or FF is accepted', async () => {
    await clearThrottles(api.deps.redis);
    const r = await discover([{ mac: '00:00:00:00:00:01' }, { mac: 'FF:FF:FF:FF:FF:FE' }]);
    expect(r).toMatchObject({ status: 200, body: { reported: 2 } });
  });
});
