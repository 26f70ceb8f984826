import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { moneyInOutEvent, orderEvent, refundEvent, toFdmData, verifyPayloadSignature, type FiscalEvent, type ReportTurnover, type SignResult } from '@pos/fiscal';
import { fdmAuthorization, FdmError, FdmNetworkError, RemoteFdmSigner } from './fdm-client.ts';
import { TEST_LINES, testCommon, testSale } from '@pos/fiscal/test-fixtures';
import { startFdmSimulator, type FdmSimulator } from './fdm-simulator.ts';

const SECRET = 'sim-secret';
const DEVICE = 'FDM-DEV-1';
let sim: FdmSimulator;
const client = (over: Partial<ConstructorParameters<typeof RemoteFdmSigner>[0]> = {}) =>
  new RemoteFdmSigner({ baseUrl: sim.url, deviceId: DEVICE, sharedSecret: SECRET, ...over });

beforeAll(() => {
  sim = startFdmSimulator({ port: 0, sharedSecret: SECRET, deviceId: DEVICE });
});
afterAll(async () => {
  await sim.stop();
});

const turnover: ReportTurnover = { saleCount: 2, refundCount: 0, sales: 2006, refunds: 0, total: 2006, vats: [{ label: 'A', taxableAmount: 826, vatAmount: 174, totalAmount: 1000 }], payments: [{ type: 'CASH', amountType: 'PAYMENT', amount: 2006 }] };

/** A request the client would never send, signed with the shared secret. */
async function rawRequest(operationName: string, data: unknown): Promise<unknown> {
  const body = JSON.stringify({ query: `mutation ${operationName}`, operationName, variables: { data, isTraining: false } });
  const date = new Date().toUTCString();
  const res = await fetch(`${sim.url}/${DEVICE}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', date, authorization: fdmAuthorization(date, SECRET, body) }, body });
  return res.json();
}

async function expectRejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

describe('RemoteFdmSigner against the FDM simulator', () => {
  test('signs a sale: fdmRef, short signature, verification URL, VAT calculation', async () => {
    const before = sim.signedCount;
    const sale = testSale({ posFiscalTicketNo: 100 });
    const raw = await client().signRaw(sale);
    expect(raw).toMatchObject({ posId: 'POS-1', posFiscalTicketNo: 100, eventOperation: 'SALE', fdmRef: { fdmId: `SIM-${DEVICE}`, eventLabel: 'N' }, bufferCapacityUsed: 0, warnings: [], informations: [], footer: [] });
    expect(raw.vatCalc).toEqual([
      { label: 'A', rate: 21, taxableAmount: 4.13, vatAmount: 0.87, totalAmount: 5, outOfScope: false },
      { label: 'C', rate: 6, taxableAmount: 4.75, vatAmount: 0.28, totalAmount: 5.03, outOfScope: false },
    ]);
    expect(raw.shortSignature).toMatch(/^[A-Z2-7]{8}$/);
    expect(raw.verificationUrl).toContain(`${sim.url}/verify?`);
    expect(sim.signedCount).toBe(before + 1);
    // The module signed exactly the wire input it received.
    const signed = { operation: 'signSale', isTraining: false, data: toFdmData(sale) };
    const result: SignResult = { fdmRef: { ...raw.fdmRef, eventLabel: 'N' }, digitalSignature: raw.digitalSignature, shortSignature: raw.shortSignature ?? '', eventOperation: 'SALE' };
    expect(verifyPayloadSignature(sim.publicKeyPem, signed, result)).toBe(true);
    expect(verifyPayloadSignature(sim.publicKeyPem, { ...signed, isTraining: true }, result)).toBe(false);
  });

  test('every operation signs under its label with rising counters', async () => {
    const c = testCommon({ posFiscalTicketNo: 200 });
    const events: FiscalEvent[] = [
      { ...c, kind: 'work_in' },
      moneyInOutEvent(c, 'float_issue', 10000, { drawerId: 'dr-1', drawerName: 'Main' }),
      { ...c, kind: 'drawer_open' },
      refundEvent(c, TEST_LINES.slice(0, 1)),
      { ...c, kind: 'report_x_turnover', turnover },
      { ...c, kind: 'report_x_user', users: [{ employeeId: 'EMP-7', turnover }] },
      { ...c, kind: 'report_z', reportNo: 1, reportBookingDate: '2026-07-01', posDevices: ['POS-1'], fdmDevices: [DEVICE], turnover },
      { ...c, kind: 'work_out' },
      testSale({ posFiscalTicketNo: 201, isTraining: true }),
    ];
    const results = [];
    for (const e of events) results.push(await client().sign(e));
    expect(results.map((r) => [r.eventOperation, r.fdmRef.eventLabel])).toEqual([
      ['WORK_IN', 'S'],
      ['MONEY_IN_OUT', 'F'],
      ['DRAWER_OPEN', 'F'],
      ['SALE', 'N'],
      ['REPORT_TURNOVER_X', 'R'],
      ['REPORT_USER_X', 'R'],
      ['REPORT_TURNOVER_Z', 'R'],
      ['WORK_OUT', 'S'],
      ['SALE', 'T'],
    ]);
    const totals = results.map((r) => r.fdmRef.totalCounter);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(new Set(totals).size).toBe(totals.length);
    expect(results[3]?.shortSignature).toBeDefined();
    expect(results[0]?.shortSignature).toBeUndefined();
  });

  test('a wrong shared secret is a typed FdmError and signs nothing', async () => {
    const before = sim.signedCount;
    const err = await expectRejection(client({ sharedSecret: 'wrong' }).sign(testSale({ posFiscalTicketNo: 300 })));
    expect(err).toBeInstanceOf(FdmError);
    expect(err).toMatchObject({ code: 'UNAUTHORIZED', subCode: 'Authorization', status: 401 });
    expect(sim.signedCount).toBe(before);
  });

  test('an unknown device path is an FdmError with the HTTP status', async () => {
    expect(await expectRejection(client({ deviceId: 'NOPE' }).sign(testSale({ posFiscalTicketNo: 303 })))).toMatchObject({ name: 'FdmError', code: 'HTTP_404', status: 404 });
  });

  test('a Date header more than 5 minutes off is refused', async () => {
    const err = await expectRejection(client({ clock: () => new Date(Date.now() - 6 * 60_000) }).sign(testSale({ posFiscalTicketNo: 301 })));
    expect(err).toMatchObject({ name: 'FdmError', code: 'UNAUTHORIZED', subCode: 'Date' });
  });

  test('invalid input is INVALID_REQUEST with a sub-code naming the field', async () => {
    const noVat = await expectRejection(client().sign(testSale({ vatNo: '' })));
    expect(noVat).toBeInstanceOf(FdmError);
    expect(noVat).toMatchObject({ code: 'INVALID_REQUEST', subCode: 'vatNo' });
    const badDay = await expectRejection(client().sign({ ...testCommon({ bookingPeriodId: 'not-a-uuid' }), kind: 'work_in' }));
    expect(badDay).toMatchObject({ code: 'INVALID_REQUEST', subCode: 'bookingPeriodId' });
    const sale = testSale({ posFiscalTicketNo: 302 });
    const badLine = { ...sale, transaction: { ...sale.transaction, lines: sale.transaction.lines.map((l, i) => (i === 1 ? { ...l, productName: '' } : l)) } };
    expect(await expectRejection(client().sign(badLine))).toMatchObject({ code: 'INVALID_REQUEST', subCode: 'transaction.transactionLines[1].mainProduct.productName' });
    const short = { ...sale, financials: sale.financials.slice(0, 2) };
    expect(await expectRejection(client().sign(short))).toMatchObject({ code: 'INVALID_REQUEST', subCode: 'financials' });
  });

  test('signs an order (signOrder): label N, operation ORDER, no financials, no short signature; financials refused', async () => {
    const order = orderEvent(testCommon({ posFiscalTicketNo: 400 }), [
      { productId: 'p-1', productName: 'Espresso', departmentId: 'd-1', departmentName: 'Drinks', quantity: 2, unitPrice: 280, vatRate: 21 },
      { productId: 'p-2', productName: 'Croissant', departmentId: 'd-2', departmentName: 'Bakery', quantity: -1, unitPrice: 220, vatRate: 6 },
    ]);
    const before = sim.signedCount;
    const raw = await client().signRaw(order);
    expect(sim.signedCount).toBe(before + 1);
    expect(raw.eventOperation).toBe('ORDER');
    expect(raw.fdmRef.eventLabel).toBe('N');
    expect([raw.shortSignature, raw.verificationUrl, raw.vatCalc]).toEqual([null, null, []]);
    const data = toFdmData(order);
    expect('financials' in data).toBe(false);
    expect(data.transaction).toMatchObject({ transactionTotal: 3.4, transactionLines: [{ mainProduct: { quantity: 2 } }, { mainProduct: { quantity: -1, negQuantityReason: 'CORRECTION' } }] });
    // Nothing is paid at a fire: an order with financials is refused.
    const paid = await rawRequest('signOrder', { ...toFdmData({ ...order, posFiscalTicketNo: 401 }), financials: [{ id: '1' }] });
    expect(paid).toEqual({ data: null, errors: [{ message: 'an order carries no financials', extensions: { code: 'INVALID_REQUEST', subCode: 'financials' } }] });
    expect(sim.signedCount).toBe(before + 1);
  });

  test('an outage and an unreachable module are FdmNetworkErrors', async () => {
    sim.simulateOutage(1);
    const err = await expectRejection(client().sign(testSale({ posFiscalTicketNo: 400 })));
    expect(err).toBeInstanceOf(FdmNetworkError);
    expect(err).toMatchObject({ status: 503 });
    const down = startFdmSimulator({ sharedSecret: SECRET, deviceId: DEVICE });
    await down.stop();
    const gone = await expectRejection(client({ baseUrl: down.url }).sign(testSale({ posFiscalTicketNo: 401 })));
    expect(gone).toBeInstanceOf(FdmNetworkError);
  });

  test('a lost response counts once: the identical retry replays the same signature', async () => {
    sim.simulateLostResponse(1);
    const sale = testSale({ posFiscalTicketNo: 500 });
    const before = sim.signedCount;
    expect(await expectRejection(client().sign(sale))).toBeInstanceOf(FdmNetworkError);
    expect(sim.signedCount).toBe(before + 1);
    const retry = await client().sign(sale);
    const again = await client().sign(sale);
    expect(retry).toEqual(again);
    expect(sim.signedCount).toBe(before + 1);
  });
});

test('main.ts runs the simulator as a standalone process from env', async () => {
  // Exactly this environment: no inherited variables, no .env from the working directory.
  const proc = Bun.spawn(['bun', '--no-env-file', `${import.meta.dir}/main.ts`], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', FDM_SIM_PORT: '0', FDM_SIM_SECRET: 's3', FDM_SIM_DEVICE_ID: 'DEV-X' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  try {
    const reader = proc.stdout.getReader();
    let out = '';
    while (!/listening on (\S+)/.test(out)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`simulator exited: ${out}`);
      out += new TextDecoder().decode(value);
    }
    const url = /listening on (\S+)/.exec(out)![1]!;
    const r = await new RemoteFdmSigner({ baseUrl: url, deviceId: 'DEV-X', sharedSecret: 's3' }).sign({ ...testCommon(), kind: 'work_in' });
    expect(r.fdmRef).toMatchObject({ fdmId: 'SIM-DEV-X', eventLabel: 'S', eventCounter: 1, totalCounter: 1 });
  } finally {
    proc.kill();
    await proc.exited;
  }
});
