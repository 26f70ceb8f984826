import { expect, test, type APIRequestContext } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardBSimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 14 item 6 with issue 12's loyalty: a simulated kiosk identifies a customer, pays an order on
 * its card-b terminal (the simulator, driven as a customer at the terminal would) with the customer's
 * loyalty token, the worker captures it and runs the deferred finalisation job, and the customer's
 * points balance grows by the order's whole euros (the demo seed's program: 1 point per euro).
 */
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

async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test.describe.serial('a kiosk customer earns loyalty points', () => {
  test('identify, pay with the loyalty token on the card-b terminal, and the balance grows', async ({ request }) => {
    const { seed, call } = await kioskClient(request);
    const phone = `+3247${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

    const identified = await call('post', '/customer/identify', { phone, name: 'Eva' });
    expect(identified.status).toBe(200);
    expect(identified.body.data).toMatchObject({ created: true, customer: { name: 'Eva' }, loyalty: { points: 0, program: { points_per_euro: 1 } } });
    const token = identified.body.data.loyalty_token as string;
    expect((await call('get', `/loyalty?loyalty_token=${token}`)).body.data.loyalty.points).toBe(0);

    // The basket the kiosk shows: the quote and the offers check use the one pricing function.
    const spaghetti = seed.items.find((i) => i.name === 'Spaghetti bolognese')!;
    const lines = [{ item_id: spaghetti.id, qty: 2 }];
    const validated = await call('post', '/offers/validate', { lines });
    expect(validated.status).toBe(200);
    const total = validated.body.data.quote.total as number;
    expect(total).toBe(2 * spaghetti.unit_price);

    const created = await call('post', '/payment/create-intent', { lines, loyalty_token: token, dining_option: 'Takeaway' });
    expect(created.status).toBe(200);
    const t = created.body.data;
    expect(t).toMatchObject({ status: 'Awaiting Payment', payment_provider: 'card-b', total });
    const key = encodeURIComponent(t.idempotency_key);
    expect((await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`))).status()).toBe(200);
    await call('get', `/payment/details/${key}`);
    const done = await eventually(
      () => call('get', `/payment/details/${key}`),
      (r) => r.body.data.status === 'Complete',
    );
    expect(done.body.data).toMatchObject({ id: t.id, status: 'Complete' });

    // The capture spent the token: it identifies nothing more.
    const spent = await call('get', `/loyalty?loyalty_token=${token}`);
    expect(spent.status).toBe(422);
    expect(spent.body.errors).toEqual({ loyalty_token: ['The loyalty token is invalid or has expired.'] });

    // The worker's deferred finalisation job earns the points: one per whole euro.
    const expected = Math.floor(total / 100);
    const login = await call('post', '/loyalty', { phone });
    expect(login.status).toBe(200);
    const after = await eventually(
      () => call('get', `/loyalty?loyalty_token=${login.body.data.loyalty_token}`),
      (r) => r.body.data?.loyalty?.points === expected,
    );
    expect(after.body.data.loyalty).toMatchObject({ points: expected, lifetime_points: expected });
    expect(after.body.data.history).toEqual([{ kind: 'earn', points: expected, balance_after: expected, transaction_id: t.id, at: expect.any(String) }]);
  });
});
