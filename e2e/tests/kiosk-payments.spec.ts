import { readFileSync } from 'node:fs';
import pg from 'pg';
import { expect, test, type APIRequestContext } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardASimUrl, cardBSimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 12: a simulated kiosk pays on its card-b terminal (the card-b simulator, a separate process,
 * driven through its control API as a customer at the terminal would): a completed sale captured by
 * the worker after the details call, a declined card, and a cancelled payment.
 */
// One activation for the whole suite: device activation is throttled per address (10 a minute), and
// the register suites that follow activate their own devices.
let kioskHeaders: Record<string, string> | undefined;

async function kioskClient(request: APIRequestContext) {
  const seed = loadSeed();
  if (!kioskHeaders) {
    const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
    const code = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: { authorization: `Bearer ${token}` } })).json()).data.activation_code;
    const act = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
    kioskHeaders = { authorization: `Bearer ${act.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
  }
  const headers = kioskHeaders;
  const call = async (method: 'get' | 'post', path: string, data?: unknown) => {
    const res = await request[method](`/api/kiosk${path}`, { headers, ...(data !== undefined ? { data } : {}) });
    return { status: res.status(), body: await res.json() };
  };
  return { seed, call };
}

/** Polls `fn` until `until` accepts its value (the worker captures asynchronously). */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

test.describe.serial('kiosk payments on the card-b terminal', () => {
  test('a sale: terminal prompt, customer pays, details dispatch the capture, the worker completes it', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const espresso = seed.items.find((i) => i.name === 'Espresso')!;
    const created = await call('post', '/payment/create-intent', { lines: [{ item_id: espresso.id, qty: 2 }] });
    expect(created.status).toBe(200);
    const t = created.body.data;
    expect(t).toMatchObject({ status: 'Awaiting Payment', payment_provider: 'card-b', total: 2 * espresso.unit_price, receipt_no: null });
    expect(t.payment_snapshot).toMatchObject({ sessionId: t.idempotency_key, terminalId: seed.kiosk.card_b_terminal_id });
    const key = encodeURIComponent(t.idempotency_key);
    expect((await call('get', `/payment/session-status?idempotency_key=${key}`)).body.data.provider_status).toBe('processing');

    const paid = await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`));
    expect(paid.status()).toBe(200);
    expect((await call('get', `/payment/session-status?idempotency_key=${key}`)).body.data.provider_status).toBe('succeeded');
    const details = await call('get', `/payment/details/${key}`);
    expect(details.body.capture).toBe('dispatched');
    const done = await eventually(
      () => call('get', `/payment/details/${key}`),
      (r) => r.body.data.status === 'Complete',
    );
    expect(done.body).toMatchObject({ capture: 'not_needed', data: { id: t.id, status: 'Complete', order_status: 'Queued', receipt_no: expect.any(Number) } });
  });

  test('a declined card: the capture leaves it Unpaid, and a retry with a fresh key completes it', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const t = (await call('post', '/payment/create-intent', { lines: [{ item_id: seed.items[0]!.id, qty: 1 }] })).body.data;
    expect((await request.post(cardBSimUrl(`/_sim/sessions/${encodeURIComponent(t.idempotency_key)}/decline`))).status()).toBe(200);
    await call('get', `/payment/details/${encodeURIComponent(t.idempotency_key)}`);
    const unpaid = await eventually(
      () => call('get', `/payment/details/${encodeURIComponent(t.idempotency_key)}`),
      (r) => r.body.data.status === 'Unpaid',
    );
    expect(unpaid.body.data.status).toBe('Unpaid');

    const retry = (await call('post', '/payment/create-intent', { transaction_id: t.id })).body.data;
    expect(retry.idempotency_key).not.toBe(t.idempotency_key);
    expect(retry.all_idempotency_keys).toEqual([t.idempotency_key, retry.idempotency_key]);
    await request.post(cardBSimUrl(`/_sim/sessions/${encodeURIComponent(retry.idempotency_key)}/complete`));
    await call('get', `/payment/details/${encodeURIComponent(retry.idempotency_key)}`);
    const done = await eventually(
      () => call('get', `/payment/details/${encodeURIComponent(t.idempotency_key)}`),
      (r) => r.body.data.status === 'Complete',
    );
    expect(done.body.data).toMatchObject({ id: t.id, status: 'Complete' });
  });

  test('a cancelled payment: the terminal session is aborted and the key marked invalid', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const t = (await call('post', '/payment/create-intent', { lines: [{ item_id: seed.items[1]!.id, qty: 1 }] })).body.data;
    const terminal = async () => (await (await request.get(cardBSimUrl(`/_sim/terminals/${seed.kiosk.card_b_terminal_id}`))).json()) as { busyWith: string | null };
    expect((await terminal()).busyWith).toBe(t.idempotency_key);
    const cancelled = await call('post', '/payment/cancel-action', { idempotency_key: t.idempotency_key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'Cancelled', invalid_idempotency_keys: [t.idempotency_key] });
    expect((await terminal()).busyWith).toBeNull();
    expect((await call('get', `/payment/session-status?idempotency_key=${encodeURIComponent(t.idempotency_key)}`)).body.data).toMatchObject({ status: 'Cancelled', provider_status: null });
    // Too late to pay: the completed-sale control is refused, the transaction stays cancelled.
    expect((await request.post(cardBSimUrl(`/_sim/sessions/${encodeURIComponent(t.idempotency_key)}/complete`))).status()).toBe(409);
    expect((await call('get', `/payment/details/${encodeURIComponent(t.idempotency_key)}`)).body).toMatchObject({ capture: 'not_needed', data: { status: 'Cancelled' } });
  });
});

/**
 * The same kiosk on a card-a reader (issue 12 "Done when": a card-a reader sale): the location's payment
 * profile reports in-person card-a, the card-a simulator (its own process) is the reader, and its signed
 * webhook reaches the running API.
 */
test.describe.serial('kiosk payments on the card-a reader', () => {
  let db: pg.Client;
  /**
   * On: the location gets its own payment profile whose card-a account can take charges (the rows that
   * connecting and onboarding it through the back office leave); off: that profile goes, and the
   * location is back on the default (`on delete set null`).
   */
  const setProfile = async (tenant: string, locationId: string, cardA: boolean) => {
    await db.query(`delete from "${tenant}".payment_profiles where name = 'e2e kiosk card-a'`);
    if (cardA)
      await db.query(
        `with p as (insert into "${tenant}".payment_profiles (id, name, is_default, card_a_account_id, card_a_charges_enabled) values (gen_random_uuid(), 'e2e kiosk card-a', false, 'acct_e2e_kiosk', true) returning id)
         update "${tenant}".locations set payment_profile_id = (select id from p) where id = $1`,
        [locationId],
      );
  };
  test.beforeAll(async () => {
    db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
    await db.connect();
    const seed = loadSeed();
    await setProfile(seed.merchant.tenant_database, seed.devices.find((d) => d.id === seed.kiosk.device_id)!.location_id, true);
  });
  test.afterAll(async () => {
    const seed = loadSeed();
    await setProfile(seed.merchant.tenant_database, seed.devices.find((d) => d.id === seed.kiosk.device_id)!.location_id, false);
    await db.end();
  });

  test('a reader sale: the intent goes to the reader, the customer taps, the kiosk sees Complete with a receipt number', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const espresso = seed.items.find((i) => i.name === 'Espresso')!;
    const created = await call('post', '/payment/create-intent', { lines: [{ item_id: espresso.id, qty: 3 }] });
    expect(created.status).toBe(200);
    const t = created.body.data;
    expect(t).toMatchObject({ status: 'Awaiting Payment', payment_provider: 'card-a', total: 3 * espresso.unit_price, receipt_no: null });
    expect(t.payment_snapshot).toMatchObject({ id: expect.stringMatching(/^pi_/), reader_id: expect.stringMatching(/^tmr_/) });
    const key = encodeURIComponent(t.idempotency_key);
    expect((await call('get', `/payment/session-status?idempotency_key=${key}`)).body.data.status).toBe('Awaiting Payment');

    expect((await request.post(cardASimUrl(`/_sim/readers/${t.payment_snapshot.reader_id}/complete`))).status()).toBe(200);
    await call('get', `/payment/details/${key}`);
    const done = await eventually(
      () => call('get', `/payment/details/${key}`),
      (r) => r.body.data.status === 'Complete',
    );
    expect(done.body.data).toMatchObject({ id: t.id, status: 'Complete', order_status: 'Queued', receipt_no: expect.any(Number) });
    // Captured exactly once, whichever of the webhook and the details poll came first; the payment is on the ledger.
    const steps = await db.query(`select step from "${seed.merchant.tenant_database}".transaction_steps where transaction_id = $1 and step = 'capture'`, [t.id]);
    expect(steps.rows).toHaveLength(1);
    const ledger = await eventually(
      async () => (await db.query(`select source, commission_amount from commission_ledger where source_ref = $1`, [t.payment_snapshot.id])).rows,
      (rows) => rows.length > 0,
    );
    expect(ledger).toEqual([{ source: 'card_a_payment', commission_amount: 0 }]);
  });

  test('a declined card on the reader: the transaction is left Unpaid with the failure, and a retry pays', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const t = (await call('post', '/payment/create-intent', { lines: [{ item_id: seed.items[0]!.id, qty: 1 }] })).body.data;
    expect(t.payment_provider).toBe('card-a');
    expect((await request.post(cardASimUrl(`/_sim/readers/${t.payment_snapshot.reader_id}/decline`))).status()).toBe(200);
    const key = encodeURIComponent(t.idempotency_key);
    const unpaid = await eventually(
      () => call('get', `/payment/session-status?idempotency_key=${key}`),
      (r) => r.body.data.status === 'Unpaid',
    );
    expect(unpaid.body.data.status).toBe('Unpaid');
    const retry = (await call('post', '/payment/create-intent', { transaction_id: t.id })).body.data;
    expect(retry.idempotency_key).not.toBe(t.idempotency_key);
    await request.post(cardASimUrl(`/_sim/readers/${retry.payment_snapshot.reader_id}/complete`));
    const done = await eventually(
      () => call('get', `/payment/details/${encodeURIComponent(retry.idempotency_key)}`),
      (r) => r.body.data.status === 'Complete',
    );
    expect(done.body.data).toMatchObject({ id: t.id, status: 'Complete' });
  });
});
