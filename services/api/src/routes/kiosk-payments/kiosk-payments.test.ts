import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { sendReceipt } from '@pos/core/payments/transaction-actions';
import { loadTransaction } from '@pos/core/payments/transaction-records';
import { mintKioskKey } from '@pos/core/payments/kiosk-keys';
import * as migration106 from '@pos/db/migrations/tenant/2026-11-27-106-idempotency-key-clocks';
import type { Kysely } from 'kysely';
import { ordersInCapacitySlot } from '@pos/core/payments/order-capacity';
import { capacitySlotOf } from '@pos/domain';
import { CardBClient, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';
import { kioskTestbed, type KioskCreds } from './kiosk-payments.test-support.ts';
import { badGateway, gate, providerHop } from '../../testing/provider-hop.ts';

// Kiosk payment routes against real PostgreSQL and Redis and the three provider simulators over HTTP.
let cardB: CardBSimulator, cardA: CardASimulator, platformA: PlatformASimulator, api: TestApi, m: DemoSeedResult, kiosk: string, CREDS: KioskCreds;
kioskTestbed('kpay', (bed) => ({ cardB, cardA, platformA, api, m, kiosk, creds: CREDS } = bed));

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const create = (body: unknown, token = kiosk) => api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body });
const status = (key: string) => api.call('GET', `/api/kiosk/payment/session-status?idempotency_key=${encodeURIComponent(key)}`, { token: kiosk, deviceKey: true });
const details = (key: string) => api.call('GET', `/api/kiosk/payment/details/${encodeURIComponent(key)}`, { token: kiosk, deviceKey: true });
const cancel = (key: string, token = kiosk) => api.call('POST', '/api/kiosk/payment/cancel-action', { token, deviceKey: true, body: { idempotency_key: key } });
const captureDeps = () => ({ tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() });
/** The location's payment settings, and the in-person provider its (default) payment profile reports. */
const setSettings = async ({ in_person_provider, ...settings }: { in_person_provider?: 'card-a' | 'card-b' } & Record<string, unknown>) => {
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify(settings) }).where('id', '=', m.locations[0]!.id).execute();
  await reportInPersonProvider(tdb(), in_person_provider ?? null);
};
const basket = () => ({ lines: [{ item_id: item('Espresso').id, qty: 2 }, { item_id: item('Croissant').id, qty: 1 }] });
const KEY = (deviceId: string) => new RegExp(`^idemp_${deviceId}_[0-9]{13}$`);
/** Runs `fn` with the kiosk's terminal id of one provider removed (the setting put back after). */
async function withoutTerminal(column: 'card_b_terminal_id' | 'card_a_reader_id' | 'platform_a_device_id', fn: () => Promise<void>) {
  const device = () => tdb().updateTable('devices').where('id', '=', m.kiosk.device_id);
  const before = (await tdb().selectFrom('devices').select(column).where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow())[column];
  await device().set({ [column]: null }).execute();
  try {
    await fn();
  } finally {
    await device().set({ [column]: before }).execute();
  }
}
const countTransactions = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
const countOrphanLines = async () =>
  Number((await tdb().selectFrom('transaction_lines').select((eb) => eb.fn.countAll<string>().as('n')).where((eb) => eb.not(eb.exists(eb.selectFrom('transactions').select('id').whereRef('transactions.id', '=', 'transaction_lines.transaction_id')))).executeTakeFirstOrThrow()).n);

describe('POST /kiosk/payment/create-intent with card-b (the kiosk default)', () => {
  test('prices from the published menu, stamps card-b, starts the terminal sale, polls and captures once', async () => {
    const r = await create({ ...basket(), tip_amount: 50 });
    expect(r.status).toBe(200);
    const t = r.body.data;
    const total = 2 * 280 + 220;
    expect(t).toMatchObject({ channel: 'kiosk', status: 'Awaiting Payment', payment_provider: 'card-b', subtotal: total, discount: 0, tip_amount: 50, total: total + 50, receipt_no: null, is_free: false, auto_success: false, order_status: null });
    expect(t.idempotency_key).toMatch(KEY(m.kiosk.device_id));
    expect(t.all_idempotency_keys).toEqual([t.idempotency_key]);
    expect(t.payment_snapshot).toEqual({ provider: 'card-b', idempotency_key: t.idempotency_key, sessionId: t.idempotency_key, terminalId: m.kiosk.card_b_terminal_id, started_at: t.payment_snapshot.started_at });
    expect(Date.parse(String(t.payment_snapshot.started_at))).toBeGreaterThan(Date.now() - 60_000);
    expect(t.lines.map((l: any) => [l.name, l.qty, l.unit_price, l.total])).toEqual([
      ['Espresso', 2, 280, 560],
      ['Croissant', 1, 220, 220],
    ]);
    expect(t.by_vat_rate.map((g: any) => g.rate).sort()).toEqual([21, 6].sort());
    const session = cardB.session(t.idempotency_key)!;
    expect({ amount: session.amount, tip: session.tipAmount, terminal: session.terminalId, register: session.cashRegisterId, ref: session.merchantReference }).toEqual({
      amount: total,
      tip: 50,
      terminal: m.kiosk.card_b_terminal_id,
      register: m.kiosk.device_id,
      ref: `${m.locations[0]!.id}:${t.order_no}`,
    });

    expect((await status(t.idempotency_key)).body).toEqual({ data: { transaction_id: t.id, idempotency_key: t.idempotency_key, status: 'Awaiting Payment', provider_status: 'processing' } });
    await cardB.complete(t.idempotency_key);
    expect((await status(t.idempotency_key)).body.data.provider_status).toBe('succeeded');

    const d = await details(t.idempotency_key);
    expect(d.status).toBe(200);
    expect(d.body.capture).toBe('dispatched');
    const outbox = await api.deps.db.selectFrom('outbox').select(['job', 'payload']).where('job', '=', 'payment.capture').execute();
    expect(outbox.some((o) => (o.payload as any).transaction_id === t.id)).toBe(true);

    const first = await capturePayment(captureDeps(), t.id, { kind: 'poll' });
    expect(first).toEqual({ status: 'Complete', completed: true, changed: true });
    const second = await capturePayment(captureDeps(), t.id, { kind: 'poll' });
    expect(second).toEqual({ status: 'Complete', completed: false, changed: false });
    const after = await details(t.idempotency_key);
    expect(after.body.capture).toBe('not_needed');
    expect(after.body.data).toMatchObject({ status: 'Complete', order_status: 'Queued', receipt_no: expect.any(Number) });
    expect(after.body.data.payment_snapshot).toMatchObject({ transactionId: session.transactionId, orderCode: session.orderCode, eventId: 0 });
    const posts = await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'payment.post-capture').execute();
    expect(posts.filter((p) => (p.payload as any).transaction_id === t.id).length).toBe(1);
    // The receipt mail's lines add up to its total: the tip has its own line.
    await sendReceipt(tdb(), await loadTransaction(tdb(), t.id), 'guest@example.com');
    const mail = (await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'notification.send').orderBy('id', 'desc').executeTakeFirstOrThrow()).payload as { data: { lines: string; total: string } };
    expect(mail.data).toMatchObject({ total: '8.30', lines: '2 x Espresso  5.60\n1 x Croissant  2.20\nTip  0.50' });
  });

  test('a busy terminal (409) gets three attempts, each with a new key; then 409 terminal_busy and the new order is gone; once free a new order starts the sale', async () => {
    const other = new CardBClient({ baseUrl: cardB.url, clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
    await other.startSale({ sessionId: 'someone-else', terminalId: m.kiosk.card_b_terminal_id, cashRegisterId: 'x', amount: 100, currencyCode: '978', merchantReference: '', customerTrns: '' });
    const before = cardB.saleRequests;
    const rows = await countTransactions();
    const r = await create(basket());
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ message: 'The payment terminal is busy with another payment. Try again.', reason: 'terminal_busy' });
    expect(cardB.saleRequests - before).toBe(3);
    // Refused before any session of ours existed: nothing is left behind (no Pending row, no lines).
    expect(await countTransactions()).toBe(rows);
    expect(await countOrphanLines()).toBe(0);

    await cardB.complete('someone-else');
    const ok = await create(basket());
    expect(ok.status).toBe(200);
    const t = ok.body.data;
    expect(t.status).toBe('Awaiting Payment');
    expect(cardB.session(t.idempotency_key)!.state).toBe('processing');
    // the running session is reused by a retry
    const again = await create({ transaction_id: t.id });
    expect(again.body.data.idempotency_key).toBe(t.idempotency_key);

    // A retry of an existing order on a busy terminal keeps the order (it was there before), its three keys folded in.
    await cardB.timeout(t.idempotency_key);
    expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Unpaid');
    await other.startSale({ sessionId: 'someone-else-2', terminalId: m.kiosk.card_b_terminal_id, cashRegisterId: 'x', amount: 100, currencyCode: '978', merchantReference: '', customerTrns: '' });
    const busyRetry = await create({ transaction_id: t.id });
    expect(busyRetry.status).toBe(409);
    const row = await tdb().selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('Unpaid');
    expect(row.all_idempotency_keys.length).toBe(4);
    expect(new Set(row.all_idempotency_keys).size).toBe(4);
    for (const k of row.all_idempotency_keys) expect(k).toMatch(KEY(m.kiosk.device_id));
    await cardB.complete('someone-else-2');
  });

  test('twenty create-intents of one kiosk at once: one sale, the others 409 with nothing left behind, no 500; keys never shared', async () => {
    const rows = await countTransactions();
    const rs = await Promise.all(Array.from({ length: 20 }, () => create(basket())));
    const statuses = rs.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(409)]);
    for (const r of rs.filter((x) => x.status === 409)) expect(r.body.reason).toBe('terminal_busy');
    expect(await countTransactions()).toBe(rows + 1);
    const won = rs.find((r) => r.status === 200)!.body.data;
    await cancel(won.idempotency_key);
    // Every key of every transaction of this kiosk belongs to exactly one transaction.
    const all = await tdb().selectFrom('transactions').select(['id', 'all_idempotency_keys']).where('device_id', '=', m.kiosk.device_id).execute();
    const owners = new Map<string, string>();
    for (const t of all) for (const k of t.all_idempotency_keys) {
      expect({ key: k, owner: owners.get(k) ?? t.id }).toEqual({ key: k, owner: t.id });
      owners.set(k, t.id);
    }
  });

  test('keys minted for one kiosk in the same millisecond, by concurrent callers, are distinct; a replacement key is later than the key it replaces', async () => {
    const at = new Date(Date.now() + 60_000);
    const keys = await Promise.all(Array.from({ length: 20 }, () => mintKioskKey(tdb(), m.kiosk.device_id, at)));
    expect(new Set(keys).size).toBe(20);
    const stamps = keys.map((k) => Number(k.split('_')[2])).sort((a, b) => a - b);
    expect(stamps[0]).toBeGreaterThanOrEqual(at.getTime());
    expect(stamps.every((x, i) => i === 0 || x === stamps[i - 1]! + 1)).toBe(true);
    const ahead = `idemp_${m.kiosk.device_id}_${stamps.at(-1)! + 1000}`;
    expect(await mintKioskKey(tdb(), m.kiosk.device_id, at, ahead)).toBe(`idemp_${m.kiosk.device_id}_${stamps.at(-1)! + 1001}`);
    expect(await mintKioskKey(tdb(), m.kiosk.device_id, new Date(at.getTime() - 120_000))).toBe(`idemp_${m.kiosk.device_id}_${stamps.at(-1)! + 1002}`);
  });

  test('a key found in two transactions (minted before the key clock) names the one whose current key it is', async () => {
    const a = (await create(basket())).body.data;
    await cancel(a.idempotency_key);
    const b = (await create(basket())).body.data;
    await cancel(b.idempotency_key);
    await tdb().updateTable('transactions').set({ all_idempotency_keys: [a.idempotency_key, b.idempotency_key] }).where('id', '=', a.id).execute();
    expect((await status(b.idempotency_key)).body.data.transaction_id).toBe(b.id);
    expect((await details(b.idempotency_key)).body.data.id).toBe(b.id);
    await tdb().updateTable('transactions').set({ all_idempotency_keys: [a.idempotency_key] }).where('id', '=', a.id).execute();
  });

  test('migration 106: down drops the key clocks; up starts each kiosk after the newest key of its transactions', async () => {
    const db = tdb() as unknown as Kysely<any>;
    const newest = async () => {
      const keys = (await tdb().selectFrom('transactions').select('all_idempotency_keys').where('device_id', '=', m.kiosk.device_id).execute()).flatMap((t) => t.all_idempotency_keys);
      return Math.max(...keys.map((k) => Number(k.split('_')[2])));
    };
    // Current keys only are read by the migration: make the newest key of the kiosk a current one.
    const t = (await create(basket())).body.data;
    await cancel(t.idempotency_key);
    await migration106.down(db);
    await migration106.up(db);
    const clock = await tdb().selectFrom('idempotency_key_clocks').select(['device_id', 'last_ms']).execute();
    expect(clock.map((c) => [c.device_id, Number(c.last_ms)])).toEqual([[m.kiosk.device_id, await newest()]]);
    expect(await mintKioskKey(tdb(), m.kiosk.device_id, new Date(0))).toBe(`idemp_${m.kiosk.device_id}_${(await newest()) + 1}`);
  });

  test('retries of one transaction sent together start one sale: every key the terminal saw is in the history, and a cancel aborts it', async () => {
    const t = (await create(basket())).body.data;
    await cardB.decline(t.idempotency_key);
    expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Unpaid');
    const sales = cardB.saleRequests;
    const rs = await Promise.all(Array.from({ length: 12 }, () => create({ transaction_id: t.id })));
    expect(rs.map((r) => r.status)).toEqual(Array(12).fill(200));
    // One new sale; the other retries found it running and reused it.
    expect(cardB.saleRequests - sales).toBe(1);
    const row = await tdb().selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(new Set(rs.map((r) => r.body.data.idempotency_key))).toEqual(new Set([row.idempotency_key]));
    expect(row.all_idempotency_keys).toEqual([t.idempotency_key, row.idempotency_key]);
    expect((await cancel(row.idempotency_key)).body.data.status).toBe('Cancelled');
    expect(cardB.session(row.idempotency_key)!.state).toBe('aborted');
  });

  test('retries and cancels of one transaction sent together take turns: once Cancelled, no session of any of its keys is still running', async () => {
    for (let round = 0; round < 3; round++) {
      const t = (await create(basket())).body.data;
      await cardB.decline(t.idempotency_key);
      const rs = await Promise.all([
        ...Array.from({ length: 4 }, () => create({ transaction_id: t.id })),
        cancel(t.idempotency_key),
        cancel(t.idempotency_key),
        details(t.idempotency_key),
      ]);
      for (const r of rs) expect(r.status).toBeLessThan(500);
      const row = await tdb().selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
      expect(row.status).toBe('Cancelled');
      expect([...row.invalid_idempotency_keys].sort()).toEqual([...row.all_idempotency_keys].sort());
      for (const k of row.all_idempotency_keys) expect({ k, state: cardB.session(k)?.state }).not.toEqual({ k, state: 'processing' });
    }
  });

  test('a cancel while the order is still Pending aborts a session its start reached without saving it (the provider answered too late)', async () => {
    const t = (await create(basket())).body.data;
    expect(cardB.session(t.idempotency_key)!.state).toBe('processing');
    // As if the start's answer never came back: the row was left Pending without its session.
    await tdb().updateTable('transactions').set({ status: 'Pending', payment_snapshot: JSON.stringify({ idempotency_key: t.idempotency_key }) }).where('id', '=', t.id).execute();
    const c = await cancel(t.idempotency_key);
    expect(c.body.data).toMatchObject({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] });
    expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
  });

  test('a declined card leaves it Unpaid; the retry mints a fresh key, the old key still finds it, and it completes', async () => {
    const t = (await create(basket())).body.data;
    await cardB.decline(t.idempotency_key);
    expect(await capturePayment(captureDeps(), t.id, { kind: 'poll' })).toEqual({ status: 'Unpaid', completed: false, changed: true });
    const retry = (await create({ transaction_id: t.id })).body.data;
    expect(retry.status).toBe('Awaiting Payment');
    expect(retry.idempotency_key).not.toBe(t.idempotency_key);
    expect(retry.all_idempotency_keys).toEqual([t.idempotency_key, retry.idempotency_key]);
    await cardB.complete(retry.idempotency_key);
    expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Complete');
    const byOld = await details(t.idempotency_key);
    expect(byOld.body.data).toMatchObject({ id: t.id, status: 'Complete' });
    expect((await create({ transaction_id: t.id })).body).toEqual({ message: 'This payment is already complete.', reason: 'payment_complete' });
  });

  test('a retry after the customer already paid captures the payment instead of starting a second sale', async () => {
    const t = (await create(basket())).body.data;
    await cardB.complete(t.idempotency_key);
    const sales = cardB.saleRequests;
    const retry = await create({ transaction_id: t.id });
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({ id: t.id, status: 'Complete', idempotency_key: t.idempotency_key, all_idempotency_keys: [t.idempotency_key] });
    expect(cardB.saleRequests).toBe(sales);
  });

  test('a retry after the customer already paid captures the payment even when the kiosk\'s terminal id was removed since: 200 Complete, not 422 terminal_not_configured', async () => {
    const t = (await create(basket())).body.data;
    await cardB.complete(t.idempotency_key);
    await withoutTerminal('card_b_terminal_id', async () => {
      const retry = await create({ transaction_id: t.id });
      expect(retry.status).toBe(200);
      expect(retry.body.data).toMatchObject({ id: t.id, status: 'Complete', idempotency_key: t.idempotency_key });
    });
    expect((await loadTransaction(tdb(), t.id)).status).toBe('Complete');
  });

  test('a retry of a sale still running after the kiosk\'s terminal id was removed: 422 terminal_not_configured, the order left waiting', async () => {
    const t = (await create(basket())).body.data;
    await withoutTerminal('card_b_terminal_id', async () => {
      const retry = await create({ transaction_id: t.id });
      expect({ status: retry.status, body: retry.body }).toEqual({ status: 422, body: { message: 'A card-b terminal must be configured for this device.', reason: 'terminal_not_configured' } });
    });
    expect(await loadTransaction(tdb(), t.id)).toMatchObject({ status: 'Awaiting Payment', idempotency_key: t.idempotency_key });
    expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
  });

  test('cancel-action after the customer paid: 409 payment_complete, and the payment is captured', async () => {
    const t = (await create(basket())).body.data;
    await cardB.complete(t.idempotency_key);
    const c = await cancel(t.idempotency_key);
    expect(c.status).toBe(409);
    expect(c.body).toEqual({ message: 'This payment is already complete.', reason: 'payment_complete' });
    expect((await details(t.idempotency_key)).body.data).toMatchObject({ status: 'Complete', invalid_idempotency_keys: [] });
  });

  test('cancel-action aborts every valid key at the terminal, marks them invalid, and is idempotent', async () => {
    const t = (await create(basket())).body.data;
    const c = await cancel(t.idempotency_key);
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] });
    expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
    expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
    expect(await capturePayment(captureDeps(), t.id, { kind: 'poll' })).toEqual({ status: 'Cancelled', completed: false, changed: false });
    expect((await status(t.idempotency_key)).body.data).toMatchObject({ status: 'Cancelled', provider_status: null });
    expect((await create({ transaction_id: t.id })).body.reason).toBe('payment_cancelled');
  });
});

describe('card-a and platform-a', () => {
  test('cancelling an order whose intent the reader no longer holds leaves the reader\'s current payment alone', async () => {
    await setSettings({ in_person_provider: 'card-a' });
    const reader = async (id: string) =>
      (await (await fetch(`${cardA.url}/v1/terminal/readers/${id}`, { headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } })).json()) as { action: { status: string; process_payment_intent: { payment_intent: string } } | null };
    try {
      const a = (await create(basket())).body.data;
      const readerId = a.payment_snapshot.reader_id as string;
      // The reader drops A's action (as when A's start never reached it) and takes B's payment.
      expect((await fetch(`${cardA.url}/v1/terminal/readers/${readerId}/cancel_action`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } })).status).toBe(200);
      const b = (await create(basket())).body.data;
      expect((await reader(readerId)).action).toMatchObject({ status: 'in_progress', process_payment_intent: { payment_intent: b.payment_snapshot.id } });
      expect((await cancel(a.idempotency_key)).body.data.status).toBe('Cancelled');
      expect(cardA.intent(a.payment_snapshot.id)!.status).toBe('canceled');
      // B's payment is still running on the reader, and completes.
      expect((await reader(readerId)).action).toMatchObject({ status: 'in_progress', process_payment_intent: { payment_intent: b.payment_snapshot.id } });
      await cardA.complete(readerId);
      expect((await capturePayment(captureDeps(), b.id, { kind: 'poll' })).status).toBe('Complete');
    } finally {
      await setSettings({});
    }
  });

  test('a reader start whose answer never comes back (the API died after the reader took the intent): the intent was recorded first, so the customer\'s payment is found and captured', async () => {
    // The intent reaches the reader; the answer is held until the test lets it go.
    const answer = gate();
    const hop = providerHop(cardA.url, async (r) => {
      const res = await r.forward();
      if (r.path.endsWith('/process_payment_intent')) await answer.wait();
      return res;
    });
    const slow = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: hop.url } });
    try {
      const sm = await slow.seed('kpay-held');
      const sdb = bindTenant(slow.deps.db, sm.merchant.tenant_database);
      await reportInPersonProvider(sdb, 'card-a');
      const token = await slow.deviceToken(sm, 'kiosk');
      const pending = slow.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: sm.items[0]!.id, qty: 1 }] } });
      await answer.reached;
      // What a crash here leaves: the order Awaiting Payment with the intent the reader is taking.
      const row = await sdb.selectFrom('transactions').selectAll().where('device_id', '=', sm.kiosk.device_id).executeTakeFirstOrThrow();
      const { id: intentId, reader_id: readerId } = row.payment_snapshot as { id: string; reader_id: string };
      expect(row.status).toBe('Awaiting Payment');
      expect(row.payment_snapshot).toEqual({ provider: 'card-a', idempotency_key: row.idempotency_key, id: intentId, reader_id: readerId });
      expect(intentId).toMatch(/^pi_/);
      expect(cardA.intent(intentId)!.metadata.transaction_id).toBe(row.id);
      await cardA.complete(readerId);
      const deps = { tdb: sdb, tenantDatabase: sm.merchant.tenant_database, redis: slow.deps.redis, providers: slow.deps.payments, log: slow.deps.log, now: () => new Date() };
      expect((await capturePayment(deps, row.id, { kind: 'poll', via: 'webhook' })).status).toBe('Complete');
      answer.release();
      const r = await pending;
      expect([r.status, r.body.data.status]).toEqual([200, 'Complete']);
    } finally {
      answer.release();
      await slow.close();
      hop.stop();
    }
  });

  test('a card-a intent already cancelled at card-a (a cancel that reached card-a but not our database) is cancelled, not refused', async () => {
    await setSettings({ in_person_provider: 'card-a' });
    try {
      const t = (await create(basket())).body.data;
      const auth = { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` };
      expect((await fetch(`${cardA.url}/v1/terminal/readers/${t.payment_snapshot.reader_id}/cancel_action`, { method: 'POST', headers: auth })).status).toBe(200);
      expect((await fetch(`${cardA.url}/v1/payment_intents/${t.payment_snapshot.id}/cancel`, { method: 'POST', headers: auth })).status).toBe(200);
      const r = await cancel(t.idempotency_key);
      expect([r.status, r.body.data?.status]).toEqual([200, 'Cancelled']);
    } finally {
      await setSettings({});
    }
  });

  test('card-a: a retry after the customer paid the intent captures it even when the kiosk\'s reader id was removed since: 200 Complete', async () => {
    await setSettings({ in_person_provider: 'card-a' });
    try {
      const t = (await create(basket())).body.data;
      await cardA.complete(t.payment_snapshot.reader_id);
      await withoutTerminal('card_a_reader_id', async () => {
        const retry = await create({ transaction_id: t.id });
        expect(retry.status).toBe(200);
        expect(retry.body.data).toMatchObject({ id: t.id, status: 'Complete', payment_snapshot: { id: t.payment_snapshot.id } });
      });
    } finally {
      await setSettings({});
    }
  });

  test('platform-a: a retry after the buyer completed the checkout captures it even when the kiosk\'s terminal device id was removed since: 200 Complete', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-KIOSK' } });
    try {
      const t = (await create(basket())).body.data;
      await platformA.complete(t.payment_snapshot.checkout_id);
      const created = platformA.created;
      await withoutTerminal('platform_a_device_id', async () => {
        const retry = await create({ transaction_id: t.id });
        expect(retry.status).toBe(200);
        expect(retry.body.data).toMatchObject({ id: t.id, status: 'Complete', payment_snapshot: { checkout_id: t.payment_snapshot.checkout_id } });
      });
      expect(platformA.created).toBe(created);
    } finally {
      await setSettings({});
    }
  });

  test('a location whose payment profile reports in-person card-a stamps card-a and pays on the reader', async () => {
    await setSettings({ in_person_provider: 'card-a' });
    try {
      const t = (await create(basket())).body.data;
      expect(t).toMatchObject({ payment_provider: 'card-a', status: 'Awaiting Payment' });
      expect(t.payment_snapshot.id).toMatch(/^pi_/);
      const pi = cardA.intent(t.payment_snapshot.id)!;
      expect([pi.amount, pi.currency, pi.metadata.transaction_id]).toEqual([780, 'eur', t.id]);
      const readerId = t.payment_snapshot.reader_id as string;
      expect(readerId).toMatch(/^tmr_/);
      expect((await status(t.idempotency_key)).body.data.provider_status).toBe('processing');
      await cardA.complete(readerId);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Complete');
      // a second sale on the same reader while another action runs is a 409
      const a = (await create(basket())).body.data;
      expect(a.status).toBe('Awaiting Payment');
      const busy = await create(basket());
      expect(busy.status).toBe(409);
      expect(busy.body.reason).toBe('terminal_busy');
      const cancelled = await cancel(a.idempotency_key);
      expect(cancelled.body.data.status).toBe('Cancelled');
      expect(cardA.intent(a.payment_snapshot.id)!.status).toBe('canceled');

      // Paid on the reader before the cancel reached it: captured, and the cancel is a 409 payment_complete.
      const paidFirst = (await create(basket())).body.data;
      await cardA.complete(paidFirst.payment_snapshot.reader_id);
      expect((await cancel(paidFirst.idempotency_key)).body).toEqual({ message: 'This payment is already complete.', reason: 'payment_complete' });
      expect((await details(paidFirst.idempotency_key)).body.data.status).toBe('Complete');

      // The provider fails after the intent was made (a reader it does not know): a session may exist,
      // so the order is kept and the error names it, for a retry or a cancel.
      const reader = (await tdb().selectFrom('devices').select('card_a_reader_id').where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow()).card_a_reader_id;
      await tdb().updateTable('devices').set({ card_a_reader_id: 'reader-gone' }).where('id', '=', m.kiosk.device_id).execute();
      const failed = await create(basket());
      expect(failed.status).toBe(503);
      expect(failed.body).toEqual({ message: 'The payment provider could not be reached. Try again.', reason: 'provider_error', transaction_id: expect.any(String) });
      const kept = await tdb().selectFrom('transactions').select(['status', 'device_id']).where('id', '=', failed.body.transaction_id).executeTakeFirstOrThrow();
      // The intent exists and may have reached a reader: recorded as started, so the webhook and a poll find it.
      expect(kept).toEqual({ status: 'Awaiting Payment', device_id: m.kiosk.device_id });
      expect((await create({ transaction_id: failed.body.transaction_id })).status).toBe(503);
      await tdb().updateTable('devices').set({ card_a_reader_id: reader }).where('id', '=', m.kiosk.device_id).execute();
    } finally {
      await setSettings({});
    }
  });

  test('an active platform-a integration overrides at payment time; cancel cancels the checkout', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-LOC' } });
    try {
      const t = (await create(basket())).body.data;
      expect(t).toMatchObject({ payment_provider: 'card-b', status: 'Awaiting Payment' });
      expect(t.payment_snapshot).toMatchObject({ provider: 'platform-a', device_id: m.kiosk.platform_a_device_id });
      const checkout = platformA.checkout(t.payment_snapshot.checkout_id)!;
      expect([checkout.amount_money.amount, checkout.reference_id, checkout.status]).toEqual([780, t.id, 'PENDING']);
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
      expect(platformA.checkout(checkout.id)!.status).toBe('CANCELED');

      const done = (await create(basket())).body.data;
      await platformA.complete(done.payment_snapshot.checkout_id);
      expect((await capturePayment(captureDeps(), done.id, { kind: 'poll' })).status).toBe('Complete');

      // without a terminal device on the kiosk: the spec's error, nothing started
      await tdb().updateTable('devices').set({ platform_a_device_id: null }).where('id', '=', m.kiosk.device_id).execute();
      const created = platformA.created;
      const rows = await countTransactions();
      const r = await create(basket());
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ message: 'platform-a Terminal device not configured for this device', reason: 'terminal_not_configured' });
      expect(platformA.created).toBe(created);
      expect(await countTransactions()).toBe(rows);
    } finally {
      await setSettings({});
      await tdb().updateTable('devices').set({ platform_a_device_id: m.kiosk.platform_a_device_id }).where('id', '=', m.kiosk.device_id).execute();
    }
  });
});

describe('refusals and bad input', () => {
  test('client prices, unknown keys and bad shapes are 422 with dot paths and nothing written', async () => {
    const count = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const withPrice = await create({ lines: [{ item_id: item('Espresso').id, qty: 1, unit_price: 1 }] });
    expect(withPrice.status).toBe(422);
    expect(Object.keys(withPrice.body.errors)).toEqual(['lines.0.unit_price']);
    expect((await create({ lines: [], extra: 1 })).status).toBe(422);
    const neither = await create({});
    expect(neither.body).toEqual({ message: 'The lines field is required unless transaction_id names a payment to retry.', errors: { lines: ['The lines field is required unless transaction_id names a payment to retry.'] } });
    const retryChanges = await create({ transaction_id: crypto.randomUUID(), tip_amount: 500, dining_option: 'Takeaway' });
    expect(retryChanges).toMatchObject({
      status: 422,
      body: {
        message: 'The tip_amount field cannot be sent with transaction_id: a retry pays the order as it was created. (and 1 more errors)',
        errors: {
          tip_amount: ['The tip_amount field cannot be sent with transaction_id: a retry pays the order as it was created.'],
          dining_option: ['The dining_option field cannot be sent with transaction_id: a retry pays the order as it was created.'],
        },
      },
    });
    const both = await create({ ...basket(), transaction_id: crypto.randomUUID() });
    expect(both.body.errors).toEqual({ transaction_id: ['Send either lines (a new order) or transaction_id (a retry), not both.'] });
    const offMenu = await create({ lines: [{ item_id: crypto.randomUUID(), qty: 1 }] });
    expect(offMenu.status).toBe(422);
    expect(Object.keys(offMenu.body.errors)).toEqual(['lines.0.item_id']);
    expect((await create({ ...basket(), tip_amount: -1 })).status).toBe(422);
    expect((await create({ ...basket(), tip_amount: 100_001 })).status).toBe(422);
    expect(await count()).toBe(before);
    expect((await details('not a key!')).status).toBe(422);
    expect((await details('x'.repeat(85))).status).toBe(422);
    expect((await details('not-a-key')).status).toBe(404);
    expect((await api.call('GET', '/api/kiosk/payment/session-status', { token: kiosk, deviceKey: true })).status).toBe(422);
    expect((await cancel('idemp_x_1')).status).toBe(422);
  });

  test('unknown keys, another kiosk\'s transaction and another merchant are 404; wrong tokens 401/403', async () => {
    const unknown = `idemp_${m.kiosk.device_id}_1795000000000`;
    expect((await details(unknown)).body).toEqual({ message: 'Unable to locate the transaction you requested.' });
    expect((await status(unknown)).status).toBe(404);
    expect((await cancel(unknown)).status).toBe(404);
    expect((await create({ transaction_id: crypto.randomUUID() })).status).toBe(404);
    const other = await api.seed('kpay-other');
    const otherKiosk = await api.deviceToken(other, 'kiosk');
    const t = (await create(basket())).body.data;
    expect((await api.call('GET', `/api/kiosk/payment/details/${t.idempotency_key}`, { token: otherKiosk, deviceKey: true })).status).toBe(404);
    expect((await create({ transaction_id: t.id }, otherKiosk)).status).toBe(404);
    await cancel(t.idempotency_key);
    expect((await api.call('POST', '/api/kiosk/payment/create-intent', { deviceKey: true, body: basket() })).status).toBe(401);
    const pos = await api.deviceToken(m, 'pos');
    expect((await create(basket(), pos)).status).toBe(403);
  });

  test('a card-b sale whose answer was lost: recorded as started, so the customer\'s payment is captured, not cancelled', async () => {
    // A real HTTP hop in front of the simulator: the sale reaches the terminal, the answer does not
    // ('lost'), or the sale never reaches it ('dropped'); anything else passes through.
    let mode: 'lost' | 'dropped' | 'pass' = 'lost';
    const hop = providerHop(cardB.url, async (r) => {
      const sale = r.method === 'POST' && r.path === '/ecr/v1/transactions:sale';
      if (sale && mode === 'dropped') return badGateway();
      const res = await r.forward();
      return sale && mode === 'lost' ? badGateway() : res;
    });
    const lossy = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: hop.url } });
    try {
      const mm = await lossy.seed('kpay-lost');
      const token = await lossy.deviceToken(mm, 'kiosk');
      const call = (method: 'GET' | 'POST', path: string, body?: unknown) => lossy.call(method, path, { token, deviceKey: true, ...(body ? { body } : {}) });
      const ttdb = bindTenant(lossy.deps.db, mm.merchant.tenant_database);
      const row = (id: string) => ttdb.selectFrom('transactions').select(['status', 'payment_snapshot', 'idempotency_key']).where('id', '=', id).executeTakeFirstOrThrow();
      const order = { lines: [{ item_id: mm.items[0]!.id, qty: 1 }] };

      const failed = await call('POST', '/api/kiosk/payment/create-intent', order);
      const id = failed.body.transaction_id as string;
      expect([failed.status, failed.body.reason, typeof id]).toEqual([503, 'provider_error', 'string']);
      const started = await row(id);
      expect(started).toMatchObject({ status: 'Awaiting Payment', payment_snapshot: { provider: 'card-b', sessionId: started.idempotency_key } });
      // The customer pays at the terminal; the kiosk gives up and cancels: the cancel asks first, and captures.
      await cardB.complete(started.idempotency_key);
      expect(await call('POST', '/api/kiosk/payment/cancel-action', { idempotency_key: started.idempotency_key })).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
      expect((await row(id)).status).toBe('Complete');

      // A sale that never reached the terminal: shortly after its start it may still be on its way
      // (processing); past that, the poll finds no session (nothing taken), the order is Unpaid, and a
      // retry starts a sale under a fresh key.
      mode = 'dropped';
      const dropped = await call('POST', '/api/kiosk/payment/create-intent', order);
      expect(dropped.status).toBe(503);
      const other = await row(dropped.body.transaction_id);
      expect(other.status).toBe('Awaiting Payment');
      const status = async () => (await call('GET', `/api/kiosk/payment/session-status?idempotency_key=${other.idempotency_key}`)).body.data;
      expect(await status()).toMatchObject({ status: 'Awaiting Payment', provider_status: 'processing' });
      const minuteAgo = new Date(Date.now() - 60_000).toISOString();
      await ttdb.updateTable('transactions').set({ payment_snapshot: JSON.stringify({ ...other.payment_snapshot, started_at: minuteAgo }) }).where('id', '=', dropped.body.transaction_id).execute();
      expect(await status()).toMatchObject({ status: 'Awaiting Payment', provider_status: 'failed' });
      const lossyCapture = { tdb: ttdb, tenantDatabase: mm.merchant.tenant_database, redis: lossy.deps.redis, providers: lossy.deps.payments, log: lossy.deps.log, now: () => new Date() };
      expect((await capturePayment(lossyCapture, dropped.body.transaction_id, { kind: 'poll' })).status).toBe('Unpaid');
      mode = 'pass';
      const retried = await call('POST', '/api/kiosk/payment/create-intent', { transaction_id: dropped.body.transaction_id });
      expect(retried.body.data).toMatchObject({ status: 'Awaiting Payment' });
      expect(retried.body.data.idempotency_key).not.toBe(other.idempotency_key);
      expect(cardB.session(retried.body.data.idempotency_key)).toBeDefined();
      await cardB.complete(retried.body.data.idempotency_key);
    } finally {
      await lossy.close();
      hop.stop();
    }
  });

  test('a cancel that outlives its turn (slow provider) does not cancel over a start that got in meanwhile: 409 payment_starting, nothing written', async () => {
    const abort = gate();
    const hop = providerHop(cardB.url, async (r) => {
      if (r.method === 'DELETE') await abort.wait();
      return r.forward();
    });
    const slow = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: hop.url } });
    try {
      const sm = await slow.seed('kpay-slowcancel');
      const token = await slow.deviceToken(sm, 'kiosk');
      const sdb = bindTenant(slow.deps.db, sm.merchant.tenant_database);
      const t = (await slow.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: sm.items[0]!.id, qty: 1 }] } })).body.data;
      const cancelling = slow.call('POST', '/api/kiosk/payment/cancel-action', { token, deviceKey: true, body: { idempotency_key: t.idempotency_key } });
      await abort.reached;
      // Meanwhile (the cancel's lock lapsed) a retry started a session under a new key.
      const next = `${t.idempotency_key}9`;
      await sdb.updateTable('transactions').set({ idempotency_key: next, all_idempotency_keys: [t.idempotency_key, next], payment_snapshot: JSON.stringify({ ...t.payment_snapshot, idempotency_key: next, sessionId: next }) }).where('id', '=', t.id).execute();
      abort.release();
      const r = await cancelling;
      expect([r.status, r.body.reason]).toEqual([409, 'payment_starting']);
      expect((await sdb.selectFrom('transactions').select('status').where('id', '=', t.id).executeTakeFirstOrThrow()).status).toBe('Awaiting Payment');
    } finally {
      await slow.close();
      hop.stop();
    }
  });

  test('a tip on a free order, and a basket past the largest storable total, are 422s; nothing is written', async () => {
    const mm = await api.seed('kpay-edge');
    const token = await api.deviceToken(mm, 'kiosk');
    const owner = await api.ownerToken(mm);
    const espresso = mm.items.find((i) => i.name === 'Espresso')!;
    const ttdb = bindTenant(api.deps.db, mm.merchant.tenant_database);
    const rows = async () => Number((await ttdb.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const price = async (unit_price: number) => expect((await api.call('PUT', `/api/back-office/items/${espresso.id}`, { token: owner, body: { unit_price } })).status).toBe(200);
    const intent = (body: unknown) => create(body, token);

    await price(0);
    const tipped = await intent({ lines: [{ item_id: espresso.id, qty: 1 }], tip_amount: 100 });
    expect(tipped).toMatchObject({ status: 422, body: { errors: { tip_amount: ['A tip cannot be added to a free order.'] } } });
    expect(await rows()).toBe(0);
    expect((await intent({ lines: [{ item_id: espresso.id, qty: 1 }] })).body.data).toMatchObject({ status: 'Complete', is_free: true, total: 0 });

    await price(10_000_000);
    const huge = { lines: [{ item_id: espresso.id, qty: 999 }] };
    for (const r of [await intent(huge), await api.call('POST', '/api/kiosk/pricing/quote', { token, deviceKey: true, body: huge })]) {
      expect(r).toMatchObject({ status: 422, body: { errors: { lines: ['The order total is too large.'] } } });
    }
    // A basket whose VAT could not even be computed exactly (100 lines of 999 at the largest price).
    // Before: 500 (a RangeError while pricing).
    const past = { lines: Array.from({ length: 100 }, () => ({ item_id: espresso.id, qty: 999 })) };
    for (const r of [await intent(past), await api.call('POST', '/api/kiosk/pricing/quote', { token, deviceKey: true, body: past })]) {
      expect(r).toMatchObject({ status: 422, body: { errors: { lines: ['The order total is too large.'] } } });
    }
    expect(await rows()).toBe(1);
    // The largest basket that fits is priced and stored.
    const largest = (await intent({ lines: [{ item_id: espresso.id, qty: 214 }] })).body.data;
    expect(largest).toMatchObject({ status: 'Awaiting Payment', total: 2_140_000_000 });
    expect((await cancel(largest.idempotency_key, token)).body.data.status).toBe('Cancelled');
  });

  test('auto-success mode completes without a terminal and marks auto_success', async () => {
    const auto = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, PAYMENT_AUTO_SUCCESS: 'true' } });
    try {
      const mm = await auto.seed('kpay-auto');
      const token = await auto.deviceToken(mm, 'kiosk');
      const sales = cardB.saleRequests;
      const r = await auto.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: mm.items[0]!.id, qty: 1 }] } });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ status: 'Complete', auto_success: true, is_free: false, order_status: 'Queued', receipt_no: 1, order_no: 1 });
      expect(cardB.saleRequests).toBe(sales);
    } finally {
      await auto.close();
    }
  });
});

describe('order capacity timing (spec 3 "Transitions": set on the transition to Complete)', () => {
  test('a completed order occupies the slot it completed in; open and cancelled ones occupy none', async () => {
    const location = m.locations[0]!.id;
    const open = (await create(basket())).body.data;
    expect((await tdb().selectFrom('transactions').select('capacity_slot_at').where('id', '=', open.id).executeTakeFirstOrThrow()).capacity_slot_at).toBeNull();
    const before = await ordersInCapacitySlot(tdb(), location, new Date());
    await cardB.complete(open.idempotency_key);
    expect(await capturePayment(captureDeps(), open.id, { kind: 'poll' })).toMatchObject({ completed: true });
    const row = await tdb().selectFrom('transactions').select(['capacity_slot_at', 'completed_at', 'status']).where('id', '=', open.id).executeTakeFirstOrThrow();
    expect(row.status).toBe('Complete');
    expect(row.capacity_slot_at!.toISOString()).toBe(capacitySlotOf(row.completed_at!).toISOString());
    // A capture at a slot boundary may land in the next slot: count in the slot the order took.
    const counted = await ordersInCapacitySlot(tdb(), location, row.completed_at!);
    expect(counted).toBeGreaterThanOrEqual(1);
    if (capacitySlotOf(row.completed_at!).getTime() === capacitySlotOf(new Date()).getTime()) expect(counted).toBe(before + 1);
    // A second capture changes nothing, the slot included.
    await capturePayment(captureDeps(), open.id, { kind: 'poll' });
    expect(await ordersInCapacitySlot(tdb(), location, row.completed_at!)).toBe(counted);
    const cancelled = (await create(basket())).body.data;
    await cancel(cancelled.idempotency_key);
    expect((await tdb().selectFrom('transactions').select('capacity_slot_at').where('id', '=', cancelled.id).executeTakeFirstOrThrow()).capacity_slot_at).toBeNull();
  });
});
