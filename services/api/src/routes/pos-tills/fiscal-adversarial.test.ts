import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { remoteFdm, type RemoteFdm } from '../../testing/remote-fdm.ts';
import { call, line, sell, signIn, type Register } from './register-test-support.ts';

// A till counted while cash booked to it still waits for a remote fiscal module: the count froze an
// expected cash that the signature (a sale booked to the till afterwards) or a refusal (a refund or
// movement taken back) then changed, leaving a variance nobody could explain.

const SECRET = 'till-fiscal-adversarial-secret';
const PENDING = { message: 'Cash of this till is still waiting for the fiscal data module: count the till once it is signed.', reason: 'fiscal_pending' };

let seeding: TestApi;
let remote: RemoteFdm;
let api: TestApi;
let sim: FdmSimulator;
let manager: Register;

beforeAll(async () => {
  seeding = await createTestApi();
  const seeded = await seeding.seed(`till-fiscal-adv-${crypto.randomUUID().slice(0, 8)}`);
  remote = await remoteFdm(seeding.deps.db, seeded, SECRET);
  ({ api, sim } = remote);
  manager = await signIn(api, seeded, 'manager', 0);
});
afterAll(async () => {
  await remote?.close();
  await seeding?.close();
});

async function duringOutage(method: string, path: string, body?: unknown) {
  sim.simulateOutage(1000);
  try {
    expect(await call(manager, method, path, body)).toMatchObject({ status: 503, body: { reason: 'fiscal_unreachable' } });
  } finally {
    sim.simulateOutage(0);
  }
}

describe('counting a till while its cash waits for the fiscal module', () => {
  test('a cash sale still SETTLING: the count is refused (409 fiscal_pending) until it is signed, then it counts it', async () => {
    const till = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).body;
    const id = crypto.randomUUID();
    expect((await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [line(manager, 'Espresso')] })).status).toBe(200);
    await duringOutage('POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);

    const refused = await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 5280 });
    expect([refused.status, refused.body]).toEqual([409, PENDING]);
    expect((await manager.tdb.selectFrom('pos_tills').select(['counted', 'expected_at_count']).where('id', '=', till.id).executeTakeFirstOrThrow())).toEqual({ counted: null, expected_at_count: null });

    // The register retries the settle once the module answers: the sale is booked to the ended till.
    expect((await call(manager, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 })).body.state).toBe('SETTLED');
    const counted = await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 5280 });
    expect(counted.body).toMatchObject({ expected: 5280, counted: 5280, variance: 0, variance_level: 'none' });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/close`)).status).toBe(200);
  });

  test('a refund and a paid-in still pending: refused; another till\'s pending cash does not hold a till back', async () => {
    const till = (await call(manager, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 1000 })).body;
    const sale = await sell(manager, [line(manager, 'Croissant')], { amount_tendered: 220 });
    await duringOutage('POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'full' });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/end`)).status).toBe(200);
    expect(await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 1000 })).toMatchObject({ status: 409, body: PENDING });

    const refund = await manager.tdb.selectFrom('pos_refunds').select('id').where('transaction_id', '=', sale.transaction_id).executeTakeFirstOrThrow();
    const [entry] = await manager.tdb.selectFrom('fiscal_journal').select('id').where('subject_type', '=', 'pos_refund').where('subject_id', '=', refund.id).execute();
    expect((await api.deps.fiscal.completePending(manager.tdb, entry!.id)).status).toBe('signed');
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/count`, { counted: 1000 })).body).toMatchObject({ expected: 1000, variance: 0 });
    expect((await call(manager, 'POST', `/pos/tills/${till.id}/close`)).status).toBe(200);

    const other = (await call(manager, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 })).body;
    // A movement is not failed by an unreachable module: 200, unsigned, its entry pending.
    sim.simulateOutage(1000);
    try {
      expect(await call(manager, 'POST', `/pos/tills/${other.id}/movements`, { type: 'paid_in', amount: 300 })).toMatchObject({ status: 200, body: { amount: 300, fiscal: {} } });
    } finally {
      sim.simulateOutage(0);
    }
    expect((await call(manager, 'POST', `/pos/tills/${other.id}/end`)).status).toBe(200);
    expect(await call(manager, 'POST', `/pos/tills/${other.id}/count`, { counted: 300 })).toMatchObject({ status: 409, body: PENDING });

    const drawer = (await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 700 })).body;
    expect((await call(manager, 'POST', `/pos/tills/${drawer.id}/end`)).status).toBe(200);
    expect((await call(manager, 'POST', `/pos/tills/${drawer.id}/count`, { counted: 700 })).body).toMatchObject({ expected: 700, variance: 0 });
  });
});
