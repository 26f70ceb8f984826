import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { systemClock } from '@pos/kernel';
import { fiscalRecoverJob } from '@pos/kernel/queues/jobs/fiscal-recover.job';
import { createFiscalService } from '@pos/core/fiscal/fiscal-service';
import { openFiscalTestTenant, saleInput, TEST_FISCAL_CONFIG, type FiscalTestTenant } from '@pos/core/fiscal/test-support';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { devLogDriver } from '../notifications/driver.ts';
import { createFiscalRecoverHandler, sweepFiscalJournals } from './fiscal-recover.handler.ts';

let t: FiscalTestTenant;
let sim: FdmSimulator;
let fdmId: string;
let loc: string;

beforeAll(async () => {
  t = await openFiscalTestTenant('worker');
  loc = await t.addLocation();
  fdmId = `WFDM-${crypto.randomUUID().slice(0, 8)}`;
  await t.enrol(loc, 'remote', fdmId);
  sim = startFdmSimulator({ deviceId: fdmId, sharedSecret: 'worker-secret' });
});
afterAll(async () => {
  await sim.stop();
  await t.close();
});

const fiscal = () => createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: sim.url, secrets: { [fdmId]: 'worker-secret' } } }, t.log);
const statuses = async () => (await t.tdb.selectFrom('fiscal_journal').select('status').where('fdm_id', '=', fdmId).orderBy('seq').execute()).map((r) => r.status);

describe('fiscal.recover job', () => {
  test('payload schema', () => {
    expect(Value.Check(fiscalRecoverJob.payload, {})).toBe(true);
    expect(Value.Check(fiscalRecoverJob.payload, { tenant_database: t.merchant.tenant_database, at: '2026-11-21T05:00:00.000Z' })).toBe(true);
    expect(Value.Check(fiscalRecoverJob.payload, { tenant_database: 'public' })).toBe(false);
    expect(Value.Check(fiscalRecoverJob.payload, { extra: 1 })).toBe(false);
  });

  test('the handler completes a merchant’s pending entries', async () => {
    const service = fiscal();
    sim.simulateOutage(1);
    await expect(service.signEvent(t.tdb, saleInput(loc))).rejects.toMatchObject({ reason: 'fiscal_unreachable' });
    expect(await statuses()).toEqual(['pending']);

    const handler = createFiscalRecoverHandler({ fiscal: service, olderThanMs: 0 });
    await handler({ tenant_database: t.merchant.tenant_database }, { db: t.handle.db, log: t.log, clock: systemClock, notifications: devLogDriver(t.log), jobId: 'test-1' });
    expect(await statuses()).toEqual(['signed']);
    expect(sim.signedCount).toBe(1);
  });

  test('the sweep goes through every merchant; an unreachable module leaves the entry for the next sweep', async () => {
    const service = fiscal();
    sim.simulateOutage(2);
    await expect(service.signEvent(t.tdb, saleInput(loc))).rejects.toMatchObject({ reason: 'fiscal_unreachable' });
    const first = await sweepFiscalJournals(t.handle.db, { fiscal: service, olderThanMs: 0 }, t.log);
    expect(first.merchants).toBeGreaterThanOrEqual(1);
    expect(await statuses()).toEqual(['signed', 'pending']);
    await sweepFiscalJournals(t.handle.db, { fiscal: service, olderThanMs: 0 }, t.log);
    expect(await statuses()).toEqual(['signed', 'signed']);
  });
});
