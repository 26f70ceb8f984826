import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { findStaleStarts } from '@pos/core/payments/stale-start-sweep';
import { handleCardAWebhook } from '@pos/core/webhooks/card-a-webhook';
import { startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';
import { badGateway, gate, providerHop, type HopRequest } from '../../testing/provider-hop.ts';

/**
 * Kiosk payments when an outcome, a cancel or a start crosses another session of the same order
 * (found by an adversarial pass): a payment made while a cancel is on its way, a poll's answer about
 * the session a retry has just replaced, a start that lost its lock.
 */
let cardB: CardBSimulator;
let cardA: CardASimulator;
let platformA: PlatformASimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const CREDS = { CARD_B_CLIENT_ID: 'races', CARD_B_CLIENT_SECRET: 'races-secret', CARD_A_SECRET_KEY: 'sk_test_races', PLATFORM_A_ACCESS_TOKEN: 'pa-races-token' };
const pass = (r: HopRequest) => r.forward();
let interceptB: (r: HopRequest) => Promise<Response> = pass;
let interceptA: (r: HopRequest) => Promise<Response> = pass;
let interceptP: (r: HopRequest) => Promise<Response> = pass;
let hops: { stop(): void }[] = [];

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  const hb = providerHop(cardB.url, (r) => interceptB(r));
  const ha = providerHop(cardA.url, (r) => interceptA(r));
  const hp = providerHop(platformA.url, (r) => interceptP(r));
  hops = [hb, ha, hp];
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: hb.url, CARD_A_BASE_URL: ha.url, PLATFORM_A_BASE_URL: hp.url } });
  m = await api.seed('kiosk-races');
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(async () => {
  await api.close();
  for (const h of hops) h.stop();
  await Promise.all([cardB.stop(), cardA.stop(), platformA.stop()]);
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const cancel = (key: string) => api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: key } });
const captureDeps = () => ({ tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() });
const basket = () => ({ lines: [{ item_id: item('Espresso').id, qty: 2 }, { item_id: item('Croissant').id, qty: 1 }] });
const row = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** Moves an order's latest start `ms` into the past (its row and the start time its snapshot records). */
const startedAgo = (id: string, ms: number) =>
  tdb()
    .updateTable('transactions')
    .set({ updated_at: new Date(Date.now() - ms), payment_snapshot: sql`payment_snapshot || jsonb_build_object('started_at', ${new Date(Date.now() - ms).toISOString()}::text)` })
    .where('id', '=', id)
    .execute();
/** The location's payment settings, and the in-person provider its (default) payment profile reports. */
const setSettings = async ({ in_person_provider, ...settings }: { in_person_provider?: 'card-a' | 'card-b' } & Record<string, unknown>) => {
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify(settings) }).where('id', '=', m.locations[0]!.id).execute();
  await reportInPersonProvider(tdb(), in_person_provider ?? null);
};
/** A route's answer, status and body, for exact comparison. */
const answer = async (res: Promise<{ status: number; body: any }>) => {
  const r = await res;
  return { status: r.status, body: r.body };
};
const PAYMENT_COMPLETE = { status: 409, body: { message: 'This payment is already complete.', reason: 'payment_complete' } };
const CANCEL_REFUSED = { status: 409, body: { message: 'The terminal payment could not be cancelled; it may have completed.', reason: 'cancel_refused' } };
/** What a hop answers in place of the provider when it refuses a request outright (a 400). */
const refusal = () => Response.json({ errors: [{ category: 'INVALID_REQUEST_ERROR', code: 'BAD_REQUEST', detail: 'Refused' }] }, { status: 400 });

/** The hop holds the first `method path` request at a gate, then forwards it: a request still on its way to the provider. */
function holdRequest(method: string, path: string) {
  const held = gate();
  const intercept = async (r: HopRequest) => {
    if (r.method === method && r.path === path) await held.wait();
    return r.forward();
  };
  return { held, intercept };
}

/** card-a's webhook event `type` about `intent` of transaction `transactionId`, handled as its route would. */
const cardAWebhook = (type: string, intent: string, transactionId: string) => {
  const event = { id: `evt_${crypto.randomUUID()}`, object: 'event', created: Math.floor(Date.now() / 1000), type, data: { object: { id: intent, object: 'payment_intent', status: type.replace('payment_intent.', ''), metadata: { location_id: m.locations[0]!.id, transaction_id: transactionId } } }, livemode: false };
  return handleCardAWebhook({ db: api.deps.db, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date(), commissionBps: 100 }, JSON.stringify(event), 'BE');
};

/**
 * card-b's answer to the first poll of `key` is held at a gate (a slow poll); with `busy`, every sale
 * meanwhile is answered 409 (the terminal is busy).
 */
function holdFirstPollOf(key: string, opts: { busy?: boolean } = {}) {
  const held = gate();
  let holdOnce = true;
  interceptB = async (r) => {
    if (opts.busy && r.method === 'POST' && r.path === '/ecr/v1/transactions:sale') return Response.json({ message: 'Terminal busy' }, { status: 409 });
    const res = await r.forward();
    if (holdOnce && r.method === 'GET' && r.path === `/ecr/v1/sessions/${key}`) {
      holdOnce = false;
      await held.wait();
    }
    return res;
  };
  return held;
}

/**
 * A start whose sale is answered 502 at once (the start gives up on its answer: in life after 15 s) and
 * reaches card-b only when `late` is released: a request that arrives late.
 */
async function lateStart() {
  const late = gate();
  let delivered: Promise<Response> | undefined;
  interceptB = async (r) => {
    if (r.method === 'POST' && r.path === '/ecr/v1/transactions:sale' && !delivered) {
      delivered = late.wait().then(() => r.forward());
      return badGateway();
    }
    return r.forward();
  };
  expect((await create(basket())).status).toBe(503);
  const t = await tdb().selectFrom('transactions').selectAll().where('status', '=', 'Awaiting Payment').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
  return { t, late, delivered: () => delivered! };
}

describe('card-b cancel', () => {
  test('the customer pays between the cancel\'s poll and its abort: 409 payment_complete and the order captured, never Cancelled', async () => {
    const t = (await create(basket())).body.data;
    expect(t.status).toBe('Awaiting Payment');
    const { held: abort, intercept } = holdRequest('DELETE', `/ecr/v1/sessions/${t.idempotency_key}`);
    interceptB = intercept;
    try {
      const cancelling = cancel(t.idempotency_key);
      await abort.reached;
      // The card is tapped while the kiosk's abort is on its way: card-b answers the abort 200 and keeps the payment.
      await cardB.complete(t.idempotency_key);
      abort.release();
      expect(await cancelling).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
      expect(cardB.session(t.idempotency_key)!.state).toBe('succeeded');
      expect(await row(t.id)).toMatchObject({ status: 'Complete', invalid_idempotency_keys: [] });
    } finally {
      abort.release();
      interceptB = pass;
    }
  });

  test('an abort card-b refuses (400) while the sale still runs: 409 cancel_refused, nothing written; the next cancel aborts it', async () => {
    const t = (await create(basket())).body.data;
    interceptB = async (r) => (r.method === 'DELETE' ? refusal() : r.forward());
    try {
      expect(await answer(cancel(t.idempotency_key))).toEqual(CANCEL_REFUSED);
      expect(await row(t.id)).toMatchObject({ status: 'Awaiting Payment', invalid_idempotency_keys: [] });
    } finally {
      interceptB = pass;
    }
    expect((await cancel(t.idempotency_key)).body.data).toMatchObject({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] });
    expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
  });

  test('an abort card-b refuses (400) after the customer paid while it travelled: captured, 409 payment_complete', async () => {
    const t = (await create(basket())).body.data;
    const abort = gate();
    interceptB = async (r) => {
      if (r.method !== 'DELETE') return r.forward();
      await abort.wait();
      return refusal();
    };
    try {
      const cancelling = answer(cancel(t.idempotency_key));
      await abort.reached;
      await cardB.complete(t.idempotency_key);
      abort.release();
      expect(await cancelling).toEqual(PAYMENT_COMPLETE);
      expect(await row(t.id)).toMatchObject({ status: 'Complete', invalid_idempotency_keys: [] });
    } finally {
      abort.release();
      interceptB = pass;
    }
  });

  test('an abort that took: Cancelled, the key invalid', async () => {
    const t = (await create(basket())).body.data;
    expect((await cancel(t.idempotency_key)).body.data).toMatchObject({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] });
    expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
  });
});

describe('an outcome about a session a retry has replaced', () => {
  test('card-b: a decline polled for the old key lands after the retry started a new sale: ignored, the new session is captured when paid', async () => {
    const t = (await create(basket())).body.data;
    await cardB.decline(t.idempotency_key);
    expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Unpaid');
    // A second poll of the old session (the details route's capture job) is slow to come back.
    const held = holdFirstPollOf(t.idempotency_key);
    try {
      const capturing = capturePayment(captureDeps(), t.id, { kind: 'poll' });
      await held.reached;
      const retry = await create({ transaction_id: t.id });
      expect(retry.body.data.status).toBe('Awaiting Payment');
      const k2 = retry.body.data.idempotency_key as string;
      held.release();
      expect(await capturing).toEqual({ status: 'Awaiting Payment', completed: false, changed: false });
      const after = await row(t.id);
      expect(after).toMatchObject({ status: 'Awaiting Payment', idempotency_key: k2 });
      expect(after.payment_snapshot).toMatchObject({ sessionId: k2 });
      expect(after.payment_snapshot.eventId).toBeUndefined();
      await cardB.complete(k2);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Complete');
    } finally {
      held.release();
      interceptB = pass;
    }
  });

  test('card-a: the late payment_intent.canceled of the old intent does not cancel the order running the new one', async () => {
    await setSettings({ in_person_provider: 'card-a' });
    try {
      const t = (await create(basket())).body.data;
      const i1 = t.payment_snapshot.id as string;
      const readerId = t.payment_snapshot.reader_id as string;
      const auth = { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` };
      // An earlier cancel reached card-a, not our database.
      expect((await fetch(`${cardA.url}/v1/terminal/readers/${readerId}/cancel_action`, { method: 'POST', headers: auth })).status).toBe(200);
      expect((await fetch(`${cardA.url}/v1/payment_intents/${i1}/cancel`, { method: 'POST', headers: auth })).status).toBe(200);
      // card-a's event for i1 is being handled; its capture waits for the capture lock of the old key.
      const lockName = `payment_capture_${t.idempotency_key}`;
      await api.deps.redis.set(lockName, 'someone', 'PX', 20_000);
      const hooking = cardAWebhook('payment_intent.canceled', i1, t.id);
      await Bun.sleep(300);
      const retry = await create({ transaction_id: t.id });
      const i2 = retry.body.data.payment_snapshot.id as string;
      expect(i2).not.toBe(i1);
      await api.deps.redis.del(lockName);
      await hooking;
      expect(await row(t.id)).toMatchObject({ status: 'Awaiting Payment', payment_snapshot: { id: i2 } });
      expect(cardA.intent(i2)!.status).not.toBe('canceled');
      await cancel(retry.body.data.idempotency_key);
    } finally {
      await setSettings({});
    }
  });
});

describe('a card-b sale that reaches the terminal late', () => {
  test('a cancel while the sale may still be on its way is 409 payment_starting; once it arrived, the cancel aborts it', async () => {
    const { t, late, delivered } = await lateStart();
    try {
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_starting' } });
      expect((await row(t.id)).status).toBe('Awaiting Payment');
      late.release();
      expect((await delivered()).status).toBe(200);
      expect(cardB.session(t.idempotency_key)!.state).toBe('processing');
      expect((await cancel(t.idempotency_key)).body.data).toMatchObject({ status: 'Cancelled' });
      expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
    } finally {
      late.release();
      interceptB = pass;
    }
  });

  test('past the in-flight window an unknown sale is cancelled; if it still arrives, the next cancel aborts it, or captures it once paid', async () => {
    const { t, late, delivered } = await lateStart();
    try {
      await startedAgo(t.id, 60_000);
      expect((await cancel(t.idempotency_key)).body.data).toMatchObject({ status: 'Cancelled' });
      // Later than anyone could expect, the sale reaches the terminal and the customer pays it.
      late.release();
      await delivered();
      await cardB.complete(t.idempotency_key);
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
      expect((await row(t.id)).status).toBe('Complete');
    } finally {
      late.release();
      interceptB = pass;
    }
  });
});

describe('a start that lost its lock', () => {
  test('a cancel ran meanwhile: the start answers 409 payment_cancelled, never 200 for a Cancelled order; the next cancel frees the terminal', async () => {
    const sale = gate();
    interceptB = async (r) => {
      if (r.method === 'POST' && r.path === '/ecr/v1/transactions:sale') await sale.wait();
      return r.forward();
    };
    try {
      const creating = create(basket());
      await sale.reached;
      const t = await tdb().selectFrom('transactions').selectAll().where('status', '=', 'Awaiting Payment').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      // Redis lost the start's lock (flushed, failed over), and the start has been going for a while: a cancel gets in.
      await api.deps.redis.del(`payment_start_${t.id}`);
      await startedAgo(t.id, 60_000);
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
      sale.release();
      expect(await creating).toMatchObject({ status: 409, body: { reason: 'payment_cancelled' } });
      expect((await row(t.id)).status).toBe('Cancelled');
      expect(cardB.session(t.idempotency_key)!.state).toBe('processing');
      // The kiosk cancels again: the sale is aborted and the terminal takes the next order.
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
      expect(cardB.session(t.idempotency_key)!.state).toBe('aborted');
      const next = (await create(basket())).body.data;
      expect(next.status).toBe('Awaiting Payment');
      await cancel(next.idempotency_key);
    } finally {
      sale.release();
      interceptB = pass;
    }
  });
});

describe('a decline of the session the order still runs', () => {
  test('applied after a retry whose start the terminal refused (busy) was undone', async () => {
    const t = (await create(basket())).body.data;
    await cardB.decline(t.idempotency_key);
    const held = holdFirstPollOf(t.idempotency_key, { busy: true });
    try {
      const capturing = capturePayment(captureDeps(), t.id, { kind: 'poll' });
      await held.reached;
      // A retry rotates the key three times, the terminal answers busy each time: the start is undone.
      expect(await create({ transaction_id: t.id })).toMatchObject({ status: 409, body: { reason: 'terminal_busy' } });
      const between = await row(t.id);
      expect(between.idempotency_key).not.toBe(t.idempotency_key);
      expect(between.payment_snapshot).toMatchObject({ sessionId: t.idempotency_key });
      held.release();
      expect(await capturing).toMatchObject({ status: 'Unpaid', changed: true });
    } finally {
      held.release();
      interceptB = pass;
    }
  });
});

describe('a card-b session the terminal does not know yet', () => {
  test('a poll shortly after the start is not a failure: the order keeps waiting, the sweep still asks, the payment is captured', async () => {
    const { t, late, delivered } = await lateStart();
    try {
      expect(await capturePayment(captureDeps(), t.id, { kind: 'poll' })).toEqual({ status: 'Awaiting Payment', completed: false, changed: false });
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_starting' } });
      late.release();
      await delivered();
      await cardB.complete(t.idempotency_key);
      // Every webhook lost: the sweep's window (5 min to 2 h) finds it waiting.
      await tdb().updateTable('transactions').set({ updated_at: new Date(Date.now() - 10 * 60_000) }).where('id', '=', t.id).execute();
      expect((await findStaleStarts(tdb(), new Date())).map((s) => s.id)).toContain(t.id);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Complete');
    } finally {
      late.release();
      interceptB = pass;
    }
  });

  test('past the window an unknown session is a failure (Unpaid), as before', async () => {
    const { t, late } = await lateStart();
    try {
      await startedAgo(t.id, 60_000);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Unpaid');
      expect((await row(t.id)).payment_snapshot).toMatchObject({ failure_code: 'session_not_found' });
    } finally {
      // The sale never arrives (released, it would keep the terminal busy for the tests after).
      void late;
      interceptB = pass;
    }
  });

  test('a sale card-b refuses outright (400) puts the order back: it cancels at once', async () => {
    interceptB = async (r) => (r.method === 'POST' && r.path === '/ecr/v1/transactions:sale' ? Response.json({ message: 'Invalid amount' }, { status: 400 }) : r.forward());
    try {
      const before = await tdb().selectFrom('transactions').select('id').execute();
      expect(await create(basket())).toMatchObject({ status: 503, body: { reason: 'provider_error' } });
      const t = await tdb().selectFrom('transactions').selectAll().where('id', 'not in', before.map((b) => b.id)).executeTakeFirstOrThrow();
      expect(t.status).toBe('Pending');
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
    } finally {
      interceptB = pass;
    }
  });

  test('a cancel finds an older session of the order paid (the snapshot names a retry\'s sale that never arrived): captured, 409 payment_complete', async () => {
    const t = (await create(basket())).body.data;
    const k1 = t.idempotency_key as string;
    // The state a retry leaves when its sale never reached card-b after a poll made the order Unpaid.
    const k2 = k1.replace(/_(\d+)$/, (_m, ms: string) => `_${Number(ms) + 1}`);
    await tdb()
      .updateTable('transactions')
      .set({ status: 'Unpaid', idempotency_key: k2, all_idempotency_keys: [k1, k2], payment_snapshot: JSON.stringify({ provider: 'card-b', idempotency_key: k2, sessionId: k2, started_at: new Date(Date.now() - 60_000).toISOString() }) })
      .where('id', '=', t.id)
      .execute();
    // The customer pays the sale that is on the terminal: k1.
    await cardB.complete(k1);
    expect(await cancel(k2)).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
    expect(await row(t.id)).toMatchObject({ status: 'Complete', payment_snapshot: { sessionId: k1, idempotency_key: k1 } });
  });
});

describe('earlier card-b sessions of the order', () => {
  /** An order whose snapshot names a retry's sale that never arrived (k2) while its first sale (k1) is on the terminal. */
  async function retriedOverRunningSale() {
    const t = (await create(basket())).body.data;
    const k1 = t.idempotency_key as string;
    const k2 = k1.replace(/_(\d+)$/, (_m, ms: string) => `_${Number(ms) + 1}`);
    await tdb()
      .updateTable('transactions')
      .set({ status: 'Unpaid', idempotency_key: k2, all_idempotency_keys: [k1, k2], payment_snapshot: JSON.stringify({ provider: 'card-b', idempotency_key: k2, sessionId: k2, started_at: new Date(Date.now() - 60_000).toISOString() }) })
      .where('id', '=', t.id)
      .execute();
    return { id: t.id as string, k1, k2 };
  }

  test('a retry finds an earlier sale paid: captured, no second sale', async () => {
    const { id, k1 } = await retriedOverRunningSale();
    await cardB.complete(k1);
    const sales = cardB.saleRequests;
    const r = await create({ transaction_id: id });
    expect(r.body.data).toMatchObject({ status: 'Complete', payment_snapshot: { sessionId: k1 } });
    expect(cardB.saleRequests).toBe(sales);
  });

  test('a retry finds an earlier sale still running: it becomes the order\'s session, no second sale', async () => {
    const { id, k1 } = await retriedOverRunningSale();
    const sales = cardB.saleRequests;
    const r = await create({ transaction_id: id });
    expect(r.body.data).toMatchObject({ status: 'Awaiting Payment', payment_snapshot: { sessionId: k1 } });
    expect(cardB.saleRequests).toBe(sales);
    await cardB.complete(k1);
    expect((await capturePayment(captureDeps(), id, { kind: 'poll' })).status).toBe('Complete');
  });

  test('cancelling a Cancelled order aborts the snapshot\'s session even when more than five keys came after it', async () => {
    const t = (await create(basket())).body.data;
    const k1 = t.idempotency_key as string;
    const later = Array.from({ length: 6 }, (_, i) => k1.replace(/_(\d+)$/, (_m, ms: string) => `_${Number(ms) + 1 + i}`));
    await tdb().updateTable('transactions').set({ status: 'Cancelled', all_idempotency_keys: [k1, ...later], invalid_idempotency_keys: [k1, ...later] }).where('id', '=', t.id).execute();
    expect(cardB.session(k1)!.state).toBe('processing');
    expect((await cancel(k1)).body.data.status).toBe('Cancelled');
    expect(cardB.session(k1)!.state).toBe('aborted');
  });

  test('cancelling a Cancelled order while card-b cannot be asked answers Cancelled, not 503', async () => {
    const t = (await create(basket())).body.data;
    expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
    interceptB = async (r) => (r.method === 'GET' && r.path.startsWith('/ecr/v1/sessions/') ? badGateway() : r.forward());
    try {
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 200, body: { data: { status: 'Cancelled' } } });
    } finally {
      interceptB = pass;
    }
  });
});

describe('a start time ahead of the clock reading it', () => {
  test('counts as just started: the unknown session is processing, the cancel waits', async () => {
    const { t } = await lateStart();
    try {
      // Written by a process whose clock is 5 s ahead.
      await startedAgo(t.id, -5_000);
      expect((await capturePayment(captureDeps(), t.id, { kind: 'poll' })).status).toBe('Awaiting Payment');
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_starting' } });
      await startedAgo(t.id, 60_000);
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
    } finally {
      interceptB = pass;
    }
  });
});

describe('platform-a: a cancel the terminal has not honoured yet, or has refused', () => {
  test('a checkout left CANCEL_REQUESTED refuses the cancel; the buyer completes it; the next cancel captures it', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    try {
      const t = (await create(basket())).body.data;
      const checkout = t.payment_snapshot.checkout_id as string;
      // platform-a takes the cancel as a request: the buyer is still on the payment screen.
      interceptP = async (r) => (r.method === 'POST' && r.path === `/v2/terminals/checkouts/${checkout}/cancel` ? Response.json({ checkout: { id: checkout, status: 'CANCEL_REQUESTED' } }) : r.forward());
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'cancel_refused' } });
      expect((await row(t.id)).status).toBe('Awaiting Payment');
      await platformA.complete(checkout);
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
      expect((await row(t.id)).status).toBe('Complete');
    } finally {
      interceptP = pass;
      await setSettings({});
    }
  });

  test('the buyer completes the checkout while the cancel travels (platform-a refuses it, 400 "already completed"): captured, 409 payment_complete', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    const t = (await create(basket())).body.data;
    const checkout = t.payment_snapshot.checkout_id as string;
    const { held, intercept } = holdRequest('POST', `/v2/terminals/checkouts/${checkout}/cancel`);
    interceptP = intercept;
    try {
      const cancelling = answer(cancel(t.idempotency_key));
      await held.reached;
      await platformA.complete(checkout);
      held.release();
      expect(await cancelling).toEqual(PAYMENT_COMPLETE);
      expect(platformA.checkout(checkout)!.status).toBe('COMPLETED');
      expect(await row(t.id)).toMatchObject({ status: 'Complete', invalid_idempotency_keys: [] });
    } finally {
      held.release();
      interceptP = pass;
      await setSettings({});
    }
  });

  test('a cancel platform-a refuses (400) of a checkout that ended there meanwhile: the order is Cancelled', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    const t = (await create(basket())).body.data;
    const checkout = t.payment_snapshot.checkout_id as string;
    // The checkout is cancelled at platform-a, and the answer the cancel gets is a refusal.
    interceptP = async (r) => {
      if (r.method !== 'POST' || r.path !== `/v2/terminals/checkouts/${checkout}/cancel`) return r.forward();
      await r.forward();
      return refusal();
    };
    try {
      const r = await cancel(t.idempotency_key);
      expect({ status: r.status, data: r.body.data }).toMatchObject({ status: 200, data: { status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] } });
      expect(platformA.checkout(checkout)!.status).toBe('CANCELED');
    } finally {
      interceptP = pass;
      await setSettings({});
    }
  });

  test('a cancel platform-a refuses (400) whose checkout cannot be asked about again (502): 409 cancel_refused as before, nothing written', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    const t = (await create(basket())).body.data;
    const checkout = t.payment_snapshot.checkout_id as string;
    let refused = false;
    interceptP = async (r) => {
      if (r.method === 'POST' && r.path === `/v2/terminals/checkouts/${checkout}/cancel`) {
        refused = true;
        return refusal();
      }
      return refused ? badGateway() : r.forward();
    };
    try {
      expect(await answer(cancel(t.idempotency_key))).toEqual(CANCEL_REFUSED);
      expect(await row(t.id)).toMatchObject({ status: 'Awaiting Payment', invalid_idempotency_keys: [] });
      interceptP = pass;
      expect((await cancel(t.idempotency_key)).body.data.status).toBe('Cancelled');
    } finally {
      interceptP = pass;
      await setSettings({});
    }
  });

  test('an order already Cancelled whose checkout was completed after all: the next cancel captures it', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    try {
      const t = (await create(basket())).body.data;
      const checkout = t.payment_snapshot.checkout_id as string;
      // The state an earlier version left: Cancelled while the checkout was still running.
      await tdb().updateTable('transactions').set({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] }).where('id', '=', t.id).execute();
      await platformA.complete(checkout);
      expect(await cancel(t.idempotency_key)).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
      expect((await row(t.id)).status).toBe('Complete');
    } finally {
      await setSettings({});
    }
  });

  test('an order already Cancelled whose checkout is completed while the re-cancel travels (platform-a refuses it, 400): captured, 409 payment_complete, not 200 Cancelled', async () => {
    await setSettings({ platform_a: { active: true, location_id: 'PA-RACES' } });
    const t = (await create(basket())).body.data;
    const checkout = t.payment_snapshot.checkout_id as string;
    // The state an earlier version left: Cancelled while the checkout was still running.
    await tdb().updateTable('transactions').set({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] }).where('id', '=', t.id).execute();
    const { held, intercept } = holdRequest('POST', `/v2/terminals/checkouts/${checkout}/cancel`);
    interceptP = intercept;
    try {
      const cancelling = answer(cancel(t.idempotency_key));
      await held.reached;
      await platformA.complete(checkout);
      held.release();
      expect(await cancelling).toEqual(PAYMENT_COMPLETE);
      expect(platformA.checkout(checkout)!.status).toBe('COMPLETED');
      expect((await row(t.id)).status).toBe('Complete');
    } finally {
      held.release();
      interceptP = pass;
      await setSettings({});
    }
  });
});


describe('card-a: the customer pays while the cancel is on its way', () => {
  /**
   * Runs `race` on a card-a order on the reader whose cancel is held at its question to the reader
   * (after its first poll); the reader's answer, the intercept and the settings are put back after.
   */
  async function withCancelHeldAtReader(race: (c: { t: any; held: { release(): void }; cancelling: ReturnType<typeof answer>; readerId: string; intent: string }) => Promise<void>) {
    await setSettings({ in_person_provider: 'card-a' });
    let held: { release(): void } | undefined;
    try {
      const t = (await create(basket())).body.data;
      expect(t.status).toBe('Awaiting Payment');
      const hold = holdRequest('GET', `/v1/terminal/readers/${t.payment_snapshot.reader_id}`);
      held = hold.held;
      interceptA = hold.intercept;
      const cancelling = answer(cancel(t.idempotency_key));
      await hold.held.reached;
      await race({ t, held: hold.held, cancelling, readerId: t.payment_snapshot.reader_id as string, intent: t.payment_snapshot.id as string });
    } finally {
      held?.release();
      interceptA = pass;
      await setSettings({});
    }
  }

  test('paid between the cancel\'s first poll and its intent cancel (card-a refuses it, 400): captured, 409 payment_complete', async () => {
    await withCancelHeldAtReader(async (c) => {
      await cardA.complete(c.readerId);
      c.held.release();
      expect(await c.cancelling).toEqual(PAYMENT_COMPLETE);
      expect(cardA.intent(c.intent)!.status).toBe('succeeded');
      expect(await row(c.t.id)).toMatchObject({ status: 'Complete', invalid_idempotency_keys: [] });
    });
  });

  test('the payment_intent.succeeded webhook completes the order while the cancel is on its way: 409 payment_complete, not cancel_refused', async () => {
    await withCancelHeldAtReader(async (c) => {
      await cardA.complete(c.readerId);
      await cardAWebhook('payment_intent.succeeded', c.intent, c.t.id);
      expect((await row(c.t.id)).status).toBe('Complete');
      c.held.release();
      expect(await c.cancelling).toEqual(PAYMENT_COMPLETE);
      expect((await row(c.t.id)).status).toBe('Complete');
    });
  });

  test('the intent cancelled at card-a while the cancel is on its way (card-a refuses a second cancel, 400): Cancelled', async () => {
    await withCancelHeldAtReader(async (c) => {
      const auth = { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` };
      expect((await fetch(`${cardA.url}/v1/payment_intents/${c.intent}/cancel`, { method: 'POST', headers: auth })).status).toBe(200);
      c.held.release();
      const r = await c.cancelling;
      expect({ status: r.status, data: r.body.data }).toMatchObject({ status: 200, data: { status: 'Cancelled', invalid_idempotency_keys: [c.t.idempotency_key] } });
    });
  });
});
