import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ProviderError } from '../shared/provider-error.ts';
import { CardBClient } from './card-b-client.ts';
import { startCardBSimulator, type CardBSimulator } from './card-b-simulator.ts';

let sim: CardBSimulator;
let client: CardBClient;
const hooks: unknown[] = [];
let hookServer: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  // Answers card-b's handshake with the merchant's key, then takes the events.
  hookServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => (req.method === 'GET' ? Response.json({ Key: 'cb-key-123' }) : (hooks.push(await req.json()), new Response('ok'))) });
  sim = startCardBSimulator({ clientId: 'cid', clientSecret: 'csecret', webhookUrl: `http://127.0.0.1:${hookServer.port}/hook`, webhookKey: 'cb-key-123' });
  client = new CardBClient({ baseUrl: sim.url, clientId: 'cid', clientSecret: 'csecret' });
});
afterAll(async () => {
  await sim.stop();
  await hookServer.stop(true);
});

const sale = (sessionId: string, terminalId = 'T-1', amount = 1250) => ({
  sessionId,
  terminalId,
  cashRegisterId: 'kiosk-1',
  amount,
  currencyCode: '978',
  merchantReference: 'loc-1:42',
  customerTrns: 'Order 42',
});

async function expectProviderError(p: Promise<unknown>, status: number) {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(ProviderError);
  expect((e as ProviderError).status).toBe(status);
  return e as ProviderError;
}

describe('card-b client against the simulator', () => {
  test('sale, 202 while processing, then success with transaction id and order code; webhook 1796 in major units', async () => {
    await client.startSale(sale('s-1'));
    expect(await client.getSession('s-1')).toEqual({ state: 'processing' });
    expect(await client.getSession('s-1')).toEqual({ state: 'processing' });
    await sim.complete('s-1');
    const r = await client.getSession('s-1');
    expect(r).toMatchObject({ state: 'final', success: true, eventId: 0, message: 'Transaction successful', amount: 1250 });
    if (r.state !== 'final') throw new Error('unreachable');
    expect(r.transactionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.orderCode).toMatch(/^[0-9]{16}$/);
    expect(hooks.at(-1)).toMatchObject({ EventTypeId: 1796, EventData: { Amount: 12.5, StatusId: 'F', OrderCode: r.orderCode, TransactionId: r.transactionId, MerchantTrns: 'loc-1:42', CustomerTrns: 'Order 42', TerminalId: 'T-1' } });
  });

  test('a terminal busy with another session answers 409; the same session id is a replay, not a conflict', async () => {
    await client.startSale(sale('s-2', 'T-2'));
    await client.startSale(sale('s-2', 'T-2'));
    const e = await expectProviderError(client.startSale(sale('s-3', 'T-2')), 409);
    expect(e.code).toBe('conflict');
    expect(e.message).toBe('card-b: sale refused: Terminal is busy with another session');
    await sim.decline('s-2');
    expect(await client.getSession('s-2')).toMatchObject({ state: 'final', success: false, eventId: 1006, message: 'Transaction declined', transactionId: null });
    expect(hooks.at(-1)).toMatchObject({ EventTypeId: 1798, EventData: { StatusId: 'E' } });
    // the terminal is free again
    await client.startSale(sale('s-3', 'T-2'));
    await sim.timeout('s-3');
    expect(await client.getSession('s-3')).toMatchObject({ state: 'final', success: false, eventId: 1003, message: 'Transaction timed out' });
  });

  test('abort ends a processing session with 1016 and frees the terminal; unknown sessions are 404', async () => {
    await client.startSale(sale('s-4', 'T-4'));
    await client.abortSession('s-4', 'kiosk-1');
    expect(await client.getSession('s-4')).toMatchObject({ state: 'final', success: false, eventId: 1016, message: 'Transaction aborted' });
    await client.startSale(sale('s-5', 'T-4'));
    await expectProviderError(client.getSession('nope'), 404);
    await expectProviderError(client.abortSession('s-5', 'other-register'), 400);
  });

  test('bad credentials and bad sales are refused', async () => {
    const bad = new CardBClient({ baseUrl: sim.url, clientId: 'cid', clientSecret: 'wrong' });
    await expectProviderError(bad.startSale(sale('s-6')), 400);
    await expectProviderError(client.startSale({ ...sale('s-7'), amount: 0 }), 400);
    const res = await fetch(`${sim.url}/ecr/v1/sessions/s-1`);
    expect(res.status).toBe(401);
  });

  test('an unreachable provider is a network ProviderError', async () => {
    const dead = new CardBClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b', timeoutMs: 2000 });
    const e = await dead.getSession('x').then(() => null, (x: unknown) => x);
    expect(e).toBeInstanceOf(ProviderError);
    expect((e as ProviderError).kind).toBe('network');
  });

  test('the control API drives sessions over HTTP (for e2e)', async () => {
    await client.startSale(sale('s-8', 'T-8', 999));
    const res = await fetch(`${sim.url}/_sim/sessions/s-8/complete`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sessionId: 's-8', success: true, eventId: 0, amount: 999 });
    const again = await fetch(`${sim.url}/_sim/sessions/s-8/complete`, { method: 'POST' });
    expect(again.status).toBe(409);
  });

  test('hosted checkout (legacy): order code, redirect URL, paid by the customer, amounts normalised to cents', async () => {
    const o = await client.createOrder({ amount: 1999, customerTrns: 'Order 5', merchantTrns: 'loc-1:5', tags: ['loc-1', 'online_ordering'], checkoutUrl: 'https://pay.card-b.example/' });
    expect(o.orderCode).toMatch(/^[0-9]{16}$/);
    expect(o.redirectUrl).toBe(`https://pay.card-b.example/web/checkout?ref=${o.orderCode}`);
    expect(await client.getOrder(o.orderCode)).toEqual({ orderCode: o.orderCode, stateId: 0, amount: 1999, transactionId: null });
    await sim.payOrder(o.orderCode);
    const paid = await client.getOrder(o.orderCode);
    expect(paid).toMatchObject({ stateId: 3, amount: 1999 });
    expect(hooks.at(-1)).toMatchObject({ EventTypeId: 1796, EventData: { OrderCode: o.orderCode, Amount: 19.99, StatusId: 'F', TransactionId: paid.transactionId, Tags: ['loc-1', 'online_ordering'] } });
    expect((await fetch(`${sim.url}/_sim/orders/${o.orderCode}/pay`, { method: 'POST' })).status).toBe(409);
    await expectProviderError(client.getOrder('1234'), 404);
    await expectProviderError(client.createOrder({ amount: 0, customerTrns: '', merchantTrns: '', tags: [], checkoutUrl: 'https://x' }), 400);
  });

  test('hosted checkout pre-authorisation: the order lists the authorisation, it is captured once (409 after), amounts in cents', async () => {
    const o = await client.createOrder({ amount: 2500, customerTrns: 'Order 6', merchantTrns: 'loc-1:6', tags: ['loc-1', 'online_ordering'], checkoutUrl: 'https://pay.card-b.example/', preauth: true });
    expect(await client.transactionsOfOrder(o.orderCode)).toEqual([]);
    await sim.payOrder(o.orderCode);
    expect(hooks.at(-1)).toMatchObject({ EventTypeId: 1796, EventData: { OrderCode: o.orderCode, TransactionTypeId: 1, StatusId: 'F' } });
    const [auth] = await client.transactionsOfOrder(o.orderCode);
    expect(auth).toMatchObject({ statusId: 'F', transactionTypeId: 1, amount: 2500, parentId: null });
    await expectProviderError(client.capturePreauthorisation(auth!.transactionId, 2501), 400);
    const cap = await client.capturePreauthorisation(auth!.transactionId, 2500);
    expect(sim.captures).toContain(cap.transactionId);
    expect(await client.transactionsOfOrder(o.orderCode)).toEqual([auth!, { transactionId: cap.transactionId, statusId: 'F', transactionTypeId: 0, amount: 2500, parentId: auth!.transactionId }]);
    await expectProviderError(client.capturePreauthorisation(auth!.transactionId, 2500), 409);
    await expectProviderError(client.capturePreauthorisation(cap.transactionId, 100), 400);
    await expectProviderError(client.capturePreauthorisation(crypto.randomUUID(), 100), 404);
    // An ordinary order's payment is a charge (5), which cannot be captured.
    const plain = await client.createOrder({ amount: 700, customerTrns: 'Order 7', merchantTrns: 'loc-1:7', tags: [], checkoutUrl: 'https://x' });
    await sim.payOrder(plain.orderCode);
    const [charge] = await client.transactionsOfOrder(plain.orderCode);
    expect(charge).toMatchObject({ transactionTypeId: 5, amount: 700 });
    await expectProviderError(client.capturePreauthorisation(charge!.transactionId, 700), 400);
  });
});
