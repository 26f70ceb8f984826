import { expect, test, type APIRequestContext } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardBSimUrl, challengeSimUrl, E2E, smsSimUrl } from '../support/stack-env.ts';

/**
 * Issue 16 item 4 through the whole stack: a customer orders at the kiosk (identified by phone, paid on
 * the card-b terminal simulator), then opens the customer app: solves the bot challenge (simulator),
 * asks for a login code, reads it from the SMS simulator as the phone would, logs in, and finds the
 * profile, the points the order earned and the order in the history and its detail.
 */
async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function kioskOrder(request: APIRequestContext, phone: string) {
  const seed = loadSeed();
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const code = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: { authorization: `Bearer ${token}` } })).json()).data.activation_code;
  const act = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
  const headers = { authorization: `Bearer ${act.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
  const call = async (method: 'get' | 'post', path: string, data?: unknown) => {
    const res = await request[method](`/api/kiosk${path}`, { headers, ...(data !== undefined ? { data } : {}) });
    return { status: res.status(), body: await res.json() };
  };
  const identified = await call('post', '/customer/identify', { phone, name: 'Olivia' });
  expect(identified.status).toBe(200);
  const item = seed.items.find((i) => i.name === 'Spaghetti bolognese')!;
  const created = await call('post', '/payment/create-intent', { lines: [{ item_id: item.id, qty: 1 }], loyalty_token: identified.body.data.loyalty_token, dining_option: 'Takeaway' });
  expect(created.status).toBe(200);
  const t = created.body.data;
  const key = encodeURIComponent(t.idempotency_key);
  expect((await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`))).status()).toBe(200);
  const done = await eventually(
    () => call('get', `/payment/details/${key}`),
    (r) => r.body.data.status === 'Complete',
  );
  expect(done.body.data.status).toBe('Complete');
  return { seed, transactionId: t.id as string, total: t.total as number };
}

test.describe.serial('customer account', () => {
  test('send OTP (read from the SMS simulator), log in, see profile, points and order history', async ({ request }) => {
    const phone = `+3247${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const { seed, transactionId, total } = await kioskOrder(request, phone);
    const slug = seed.merchant.slug;

    // Without a solved challenge the code is not sent.
    const refused = await request.post('/api/customer/send-otp', { data: { slug, phone } });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).code).toBe('CAPTCHA_REQUIRED');

    const challenge = (await (await request.post(challengeSimUrl('/_sim/tokens'))).json()).token as string;
    const sent = await request.post('/api/customer/send-otp', { data: { slug, phone, 'challenge-response': challenge } });
    expect(sent.status()).toBe(200);
    expect(await sent.json()).toMatchObject({ status: 'success', channel: 'sms' });
    const inbox = (await (await request.get(smsSimUrl(`/_sim/messages?to=${encodeURIComponent(phone)}`))).json()).data as { text: string }[];
    const code = /(\d{6})/.exec(inbox.at(-1)!.text)![1]!;

    const login = await request.post('/api/customer/login', { data: { slug, phone, code } });
    expect(login.status()).toBe(200);
    const session = await login.json();
    // The kiosk enrolled this phone: the login finds that customer.
    expect(session).toMatchObject({ status: 'success', token_type: 'Bearer', created: false, customer: { name: 'Olivia', phone } });
    const headers = { authorization: `Bearer ${session.token}` };

    const profile = await request.get('/api/customer/user', { headers });
    expect(profile.status()).toBe(200);
    expect((await profile.json()).data).toMatchObject({ id: session.customer.id, name: 'Olivia', phone });

    const history = await eventually(
      async () => (await request.post(`/api/customer/${slug}/order-history`, { headers, data: {} })).json(),
      (b) => b.total === 1,
    );
    expect(history.data).toEqual([expect.objectContaining({ id: transactionId, status: 'Complete', total, channel: 'kiosk' })]);
    const detail = await request.get(`/api/customer/${slug}/order-detail/${transactionId}`, { headers });
    expect(detail.status()).toBe(200);
    expect((await detail.json()).data).toMatchObject({ id: transactionId, total, customer_id: session.customer.id });

    const points = await eventually(
      async () => (await request.get(`/api/customer/loyalties/${slug}`, { headers })).json(),
      (b) => b.data?.points === Math.floor(total / 100),
    );
    expect(points.data.points).toBe(Math.floor(total / 100));

    // A code logs in once.
    expect((await request.post('/api/customer/login', { data: { slug, phone, code } })).status()).toBe(422);
    expect((await request.post('/api/customer/logout', { headers })).status()).toBe(200);
    expect((await request.get('/api/customer/user', { headers })).status()).toBe(401);
  });
});
