/**
 * Fiscal recovery after a crash between the two steps of a remote signed change: the module's answer
 * was recorded on the journal entry (signed or refused), but the process stopped before it finished
 * the record (the SETTLING order, the refund without `fiscal`, the movement without `journal_id`, the
 * closed day without its signature). The sweep of pending entries no longer sees such an entry; the
 * worker's `fiscal.recover` job must still finish (or undo) the record.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger, systemClock } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { signedEventOf } from '@pos/core/fiscal/journal-rows';
import { storedSignature } from '@pos/core/pos/signed-change/signed-change';
import type { FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from '../../api/src/testing/harness.ts';
import { remoteFdm, type RemoteFdm } from '../../api/src/testing/remote-fdm.ts';
import { call, journalOf, line, sell, signIn, type Register } from '../../api/src/routes/pos-tills/register-test-support.ts';
import { createHandlers } from './jobs/index.ts';
import { devLogDriver } from './notifications/driver.ts';
import { testFiscal } from './test-support.ts';

const SECRET = 'recover-adversarial-secret';
const log = createLogger({ service: 'worker-test' }, 'error');

let seeding: TestApi;
let remote: RemoteFdm;
let api: TestApi;
let sim: FdmSimulator;
let fdmId: string;
let m: DemoSeedResult;
let manager: Register;

beforeAll(async () => {
  seeding = await createTestApi();
  m = await seeding.seed(`recover-adv-${crypto.randomUUID().slice(0, 8)}`);
  remote = await remoteFdm(seeding.deps.db, m, SECRET);
  ({ api, sim, fdmId } = remote);
  manager = await signIn(api, m, 'manager');
});
afterAll(async () => {
  await remote?.close();
  await seeding?.close(); // drops the merchant
});

/** A fiscal service with no record hooks: completing an entry with it is what a process that stopped right after the module's answer leaves. */
const bare = (secret: string) => testFiscal(log, remote.env(secret));

async function runWorkerJob(): Promise<void> {
  const handlers = createHandlers({ fiscal: bare(SECRET), clock: systemClock, fiscalRecoverOlderThanMs: 0 });
  await handlers['fiscal.recover']({ tenant_database: m.merchant.tenant_database }, { db: api.deps.db, log, clock: systemClock, notifications: devLogDriver(log), jobId: 'test-recover-adversarial' });
}

async function duringOutage(method: string, path: string, body?: unknown): Promise<void> {
  sim.simulateOutage(1000);
  try {
    // A till movement is kept and answered unsigned (nothing for the register to retry); the others are 503.
    const kept = path.endsWith('/movements') ? { status: 200, body: { fiscal: {} } } : { status: 503, body: { reason: 'fiscal_unreachable' } };
    expect(await call(manager, method, path, body)).toMatchObject(kept);
  } finally {
    sim.simulateOutage(0);
  }
}

/** The answer lands on the entry, then the process "stops": the record is left as it was. */
async function answerWithoutFinishing(type: string, id: string, secret: string): Promise<string> {
  const [entry] = await journalOf(manager, type, id);
  expect(entry!.status).toBe('pending');
  await bare(secret).completePending(manager.tdb, entry!.id);
  return entry!.id;
}

const json = (v: unknown): any => (typeof v === 'string' ? JSON.parse(v) : v);

describe('records left behind between the module answer and the record (remote module)', () => {
  test('a signed sale, a signed refund and a refused movement are finished by the next fiscal.recover run', async () => {
    const till = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body.id as string;
    const sold = await sell(manager, [line(manager, 'Espresso', 2)], { amount_tendered: 560 });

    // A sale settled during an outage, whose late signature was recorded on the entry only.
    const orderId = crypto.randomUUID();
    expect((await call(manager, 'PUT', `/pos/orders/${orderId}`, { lines: [line(manager, 'Croissant')] })).status).toBe(200);
    await duringOutage('POST', `/pos/orders/${orderId}/settle`, { amount_tendered: 220 });
    const order = await manager.tdb.selectFrom('pos_orders').select(['id', 'state']).where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(order.state).toBe('SETTLING');
    const saleEntry = await answerWithoutFinishing('pos_order', order.id, SECRET);

    await duringOutage('POST', '/pos/refunds', { transaction_id: sold.transaction_id, mode: 'full' });
    const refund = await manager.tdb.selectFrom('pos_refunds').selectAll().where('transaction_id', '=', sold.transaction_id).executeTakeFirstOrThrow();
    const refundEntry = await answerWithoutFinishing('pos_refund', refund.id, SECRET);

    await duringOutage('POST', `/pos/tills/${till}/movements`, { type: 'paid_in', amount: 500, reason: 'top-up' });
    const movement = await manager.tdb.selectFrom('pos_till_movements').selectAll().where('till_id', '=', till).executeTakeFirstOrThrow();
    await answerWithoutFinishing('pos_till_movement', movement.id, 'not-the-module-secret'); // refused: counted nothing

    // As the crash left them: every entry complete, every record still a reservation.
    expect((await manager.tdb.selectFrom('pos_orders').select('state').where('id', '=', order.id).executeTakeFirstOrThrow()).state).toBe('SETTLING');
    expect((await manager.tdb.selectFrom('pos_refunds').select('fiscal').where('id', '=', refund.id).executeTakeFirstOrThrow()).fiscal).toBeNull();
    expect(await manager.tdb.selectFrom('pos_till_movements').select('id').where('id', '=', movement.id).execute()).toHaveLength(1);
    const signedBefore = sim.signedCount;

    await runWorkerJob();
    expect(sim.signedCount).toBe(signedBefore); // nothing sent again

    const settled = await manager.tdb.selectFrom('pos_orders').selectAll().where('id', '=', order.id).executeTakeFirstOrThrow();
    expect(settled.state).toBe('SETTLED');
    const [saleRow] = await journalOf(manager, 'pos_order', order.id);
    expect(saleRow!.id).toBe(saleEntry);
    expect(json(settled.fiscal)).toEqual(storedSignature(signedEventOf(saleRow!)));
    const [refundRow] = await journalOf(manager, 'pos_refund', refund.id);
    expect(refundRow!.id).toBe(refundEntry);
    expect(json((await manager.tdb.selectFrom('pos_refunds').select('fiscal').where('id', '=', refund.id).executeTakeFirstOrThrow()).fiscal)).toEqual(storedSignature(signedEventOf(refundRow!)));
    expect(await manager.tdb.selectFrom('pos_till_movements').select('id').where('id', '=', movement.id).execute()).toEqual([]);

    // The till counts the float, both sales' cash and the refund, not the refused paid-in.
    expect((await call(manager, 'POST', `/pos/tills/${till}/end`)).status).toBe(200);
    expect((await call(manager, 'POST', `/pos/tills/${till}/count`, { counted: 5000 + 560 + 220 - 560 })).body).toMatchObject({ variance: 0 });
  });

  test('a Z close whose refusal was recorded but not taken back: the day is reopened, not left closed without a signed Z', async () => {
    const open = await manager.tdb.selectFrom('pos_tills').select('id').where('state', '!=', 'closed').execute();
    for (const t of open) expect((await call(manager, 'POST', `/pos/tills/${t.id}/close`)).status).toBe(200);
    await duringOutage('POST', '/pos/business-day/close', {});
    const day = await manager.tdb.selectFrom('pos_business_days').selectAll().where('location_id', '=', m.locations[0]!.id).executeTakeFirstOrThrow();
    expect(day).toMatchObject({ status: 'closed', journal_id: null });
    await answerWithoutFinishing('pos_business_day', day.id, 'not-the-module-secret');

    await runWorkerJob();
    expect(await manager.tdb.selectFrom('pos_business_days').selectAll().where('id', '=', day.id).executeTakeFirstOrThrow()).toMatchObject({ status: 'open', z_report_no: null, journal_id: null });
    const z = await call(manager, 'POST', '/pos/business-day/close', {});
    expect([z.status, z.body.z_report?.report_number]).toEqual([200, 1]);
  });
});
