import { readFileSync } from 'node:fs';
import pg from 'pg';
import { chromium, expect, test, type APIRequestContext, type Browser } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardBSimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 14: a kiosk order paid on the card-b terminal reaches the kitchen screen page (served by the
 * API, opened in Debian's Chromium), moves through in-progress, ready and complete by clicking; and
 * every KDS action over HTTP on a second paid order.
 */
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

type Headers = Record<string, string>;
let devices: { kiosk: Headers; kds: Headers; kdsToken: string; kdsId: string; owner: Headers } | undefined;

/**
 * Activates the seed's kiosk once (activation is throttled per address) and a kitchen display of this
 * suite's own, created in the back office and bound to the seed's station (the seed's KDS keeps its
 * activation code for platform.spec). No route sells a device subscription yet: it is set in the
 * database, as other suites set up what no route sets.
 */
async function setup(request: APIRequestContext) {
  if (devices) return devices;
  const seed = loadSeed();
  const { token } = await (await request.post('/api/login', { data: seed.backoffice })).json();
  const owner = { authorization: `Bearer ${token}` };
  const activate = async (code: string) => (await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json()).token as string;
  const kioskCode = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: owner })).json()).data.activation_code;
  const kioskToken = await activate(kioskCode);
  const location = seed.devices.find((d) => d.id === seed.kds.device_id)!.location_id;
  const created = await request.post('/api/back-office/devices', { headers: owner, data: { name: 'Kitchen screen e2e', type: 'kds', location_id: location } });
  expect(created.status()).toBe(201);
  const kds = (await created.json()).data as { id: string; activation_code: string };
  expect((await request.post(`/api/back-office/devices/${kds.id}/station`, { headers: owner, data: { station_id: seed.kds.station_id } })).status()).toBe(200);
  const db = new pg.Client({ connectionString: readFileSync(E2E.databaseUrlFile, 'utf8') });
  await db.connect();
  try {
    await db.query(`update "${seed.merchant.tenant_database}".devices set subscription_active_until = now() + interval '1 day' where id = $1`, [kds.id]);
  } finally {
    await db.end();
  }
  const kdsToken = await activate(kds.activation_code);
  const key = E2E.env.DEVICE_API_KEY;
  devices = { kiosk: { authorization: `Bearer ${kioskToken}`, 'x-client-api-key': key }, kds: { authorization: `Bearer ${kdsToken}`, 'x-client-api-key': key }, kdsToken, kdsId: kds.id, owner };
  return devices;
}

async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** A kiosk sale paid on the terminal and captured by the worker; answers the transaction. */
async function payKioskOrder(request: APIRequestContext, kiosk: Headers, lines: { item_id: string; qty: number }[]) {
  const created = await request.post('/api/kiosk/payment/create-intent', { headers: kiosk, data: { lines } });
  expect(created.status()).toBe(200);
  const t = (await created.json()).data;
  const key = encodeURIComponent(t.idempotency_key);
  expect((await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`))).status()).toBe(200);
  await request.get(`/api/kiosk/payment/details/${key}`, { headers: kiosk });
  const done = await eventually(
    async () => (await (await request.get(`/api/kiosk/payment/details/${key}`, { headers: kiosk })).json()).data,
    (d) => d.status === 'Complete',
  );
  expect(done.status).toBe('Complete');
  return t as { id: string; order_no: number };
}

let browser: Browser | undefined;
test.afterAll(async () => {
  await browser?.close();
});

test.describe.serial('kitchen display', () => {
  test('a paid kiosk order appears on the kitchen screen and moves by clicking', async ({ request, baseURL }, testInfo) => {
    const { kiosk, kds, kdsToken } = await setup(request);
    const seed = loadSeed();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${baseURL}/kds-screen#token=${kdsToken}&key=${E2E.env.DEVICE_API_KEY}`);
    await expect(page.locator('#station')).toHaveText('Kitchen');
    await expect(page.locator('#link')).toHaveAttribute('data-state', 'live');
    await expect(page.locator('#login')).toBeHidden();
    // The credentials left the address bar.
    expect(page.url()).not.toContain('token=');

    const espresso = seed.items.find((i) => i.name === 'Espresso') ?? seed.items[0]!;
    const t = await payKioskOrder(request, kiosk, [{ item_id: espresso.id, qty: 2 }]);
    const card = page.locator(`article.ticket[data-order-no="${t.order_no}"]`);
    await expect(card).toBeVisible({ timeout: 15_000 });
    await expect(card).toHaveAttribute('data-status', 'Queued');
    await expect(card.locator('li').first()).toContainText(`2 × ${espresso.name}`);
    const shot = testInfo.outputPath('kds-screen.png');
    await page.screenshot({ path: shot, fullPage: true });
    await testInfo.attach('kitchen screen with the new order', { path: shot, contentType: 'image/png' });
    const id = await card.getAttribute('data-order-id');

    const serverStatus = async () => ((await (await request.get('/api/kds/orders', { headers: kds })).json()).data as { id: string; status: string }[]).find((o) => o.id === id)?.status;
    await card.locator('button[data-action="in-progress"]').click();
    await expect(card).toHaveAttribute('data-status', 'In Progress');
    expect(await serverStatus()).toBe('In Progress');
    await card.locator('button[data-action="ready"]').click();
    await expect(card).toHaveAttribute('data-status', 'Ready');
    expect(await serverStatus()).toBe('Ready');
    await page.screenshot({ path: testInfo.outputPath('kds-screen-ready.png') });
    await testInfo.attach('the order ready', { path: testInfo.outputPath('kds-screen-ready.png'), contentType: 'image/png' });
    await card.locator('button[data-action="complete"]').click();
    await expect(card).toHaveCount(0);
    expect(await serverStatus()).toBeUndefined();

    // A change made elsewhere (another screen, over HTTP) reaches this one live: recall brings it back.
    expect((await request.put(`/api/kds/${id}/recall`, { headers: kds })).status()).toBe(200);
    await expect(card).toHaveAttribute('data-status', 'Ready');
    expect((await request.put(`/api/kds/${id}/complete`, { headers: kds })).status()).toBe(200);
    await expect(card).toHaveCount(0);
    expect(problems).toEqual([]);
  });

  test('every KDS action over HTTP on a paid order, then the kitchen report', async ({ request }) => {
    const { kiosk, kds, owner } = await setup(request);
    const seed = loadSeed();
    const item = seed.items[0]!;
    const t = await payKioskOrder(request, kiosk, [{ item_id: item.id, qty: 1 }]);
    const orders = await eventually(
      async () => (await (await request.get('/api/kds/orders', { headers: kds })).json()).data as { id: string; order_no: string; status: string }[],
      (list) => list.some((o) => o.order_no === String(t.order_no)),
    );
    const id = orders.find((o) => o.order_no === String(t.order_no))!.id;
    const put = async (path: string, data?: unknown) => {
      const r = await request.put(`/api/kds${path}`, { headers: kds, ...(data !== undefined ? { data } : {}) });
      return { status: r.status(), body: await r.json() };
    };
    const post = async (path: string, data: unknown) => {
      const r = await request.post(`/api/kds${path}`, { headers: kds, data });
      return { status: r.status(), body: await r.json() };
    };
    expect(await put(`/${id}/hold`)).toMatchObject({ status: 200, body: { data: { held: true, status: 'Queued' } } });
    expect(await put(`/${id}/in-progress`)).toMatchObject({ status: 409, body: { reason: 'order_held', message: 'This order is on hold. Release it first.' } });
    expect(await put(`/${id}/release`)).toMatchObject({ status: 200, body: { data: { held: false } } });
    expect(await put(`/${id}/prioritize`)).toMatchObject({ status: 200, body: { data: { prioritized: true } } });
    expect(await put('/mark-item', { order_id: id, position: 0, status: 'In Progress' })).toMatchObject({ status: 200, body: { data: { status: 'In Progress', items: [{ status: 'In Progress' }] } } });
    expect(await put(`/${id}/in-progress`)).toMatchObject({ status: 200, body: { data: { status: 'In Progress' } } });
    expect(await put(`/${id}/unprioritize`)).toMatchObject({ status: 200, body: { data: { prioritized: false } } });
    expect(await post('/customer-arrived', { order_id: id })).toMatchObject({ status: 200, body: { data: { customer_arrived_at: expect.any(String) } } });
    expect(await post('/estimated-arrival', { order_id: id, estimated_arrival_at: '2030-01-01T12:00:00Z' })).toMatchObject({ status: 200, body: { data: { estimated_arrival_at: '2030-01-01T12:00:00.000Z' } } });
    expect(await put(`/${id}/ready`)).toMatchObject({ status: 200, body: { data: { status: 'Ready', ready_at: expect.any(String) } } });
    expect(await put(`/${id}/hold`)).toMatchObject({ status: 409, body: { reason: 'order_ready' } });
    expect(await put(`/${id}/recall`)).toMatchObject({ status: 409, body: { reason: 'order_not_complete' } });
    expect(await put(`/${id}/complete`)).toMatchObject({ status: 200, body: { data: { status: 'Complete' } } });
    expect(await put(`/${id}/recall`)).toMatchObject({ status: 200, body: { data: { status: 'Ready', completed_at: null } } });
    expect(await put(`/${id}/complete`)).toMatchObject({ status: 200, body: { data: { status: 'Complete' } } });
    expect(await put('/mark-item', { order_id: id, position: 0, status: 'Ready' })).toMatchObject({ status: 409, body: { reason: 'order_complete' } });

    const get = async (path: string, headers = kds) => {
      const r = await request.get(`/api${path}`, { headers });
      return { status: r.status(), body: await r.json() };
    };
    expect((await get('/kds/items')).body.data.some((i: { id: string }) => i.id === item.id)).toBe(true);
    expect((await get('/kds/categories')).status).toBe(200);
    const metrics = (await get('/kds/metrics/summary')).body.data;
    expect(metrics).toMatchObject({ station_id: seed.kds.station_id, time_zone: 'Europe/Brussels' });
    expect(metrics.completed_today).toBeGreaterThanOrEqual(2);
    expect(await put('/settings', { late_after_minutes: 10 })).toMatchObject({ status: 200, body: { data: { settings: { late_after_minutes: 10 }, overrides: { late_after_minutes: 10 } } } });
    expect((await get('/kds/settings')).body.data.settings.late_after_minutes).toBe(10);
    expect(await put('/settings', { late_after_minutes: null })).toMatchObject({ status: 200, body: { data: { overrides: {} } } });
    expect(await post('/push-token', { push_token: 'e2e-token', platform: 'android' })).toEqual({ status: 200, body: { status: 'success' } });

    const report = await get(`/back-office/kds-reports/summary?location_id=${seed.locations[0]!.id}`, owner);
    expect(report.status).toBe(200);
    expect(report.body.data.totals.orders).toBeGreaterThanOrEqual(2);
    expect(report.body.data.stations).toEqual([expect.objectContaining({ station_id: seed.kds.station_id, name: 'Kitchen' })]);
    const devicesList = await get('/back-office/devices?per_page=100', owner);
    expect(devicesList.body.data.find((d: { id: string }) => d.id === devices!.kdsId).online).toBe(true);
  });

  test('the screen signs in with the login form (API key and activation code)', async ({ request, baseURL }) => {
    const { owner, kdsId } = await setup(request);
    const code = (await (await request.post(`/api/back-office/devices/${kdsId}/new-activation-code`, { headers: owner })).json()).data.activation_code;
    browser ??= await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    await page.goto(`${baseURL}/kds-screen`);
    await expect(page.locator('#login')).toBeVisible();
    await page.fill('#login-key', E2E.env.DEVICE_API_KEY);
    await page.fill('#login-code', 'WRONG-CODE');
    await page.click('#login button[type="submit"]');
    await expect(page.locator('#login-error')).not.toBeEmpty();
    await page.fill('#login-code', code);
    await page.click('#login button[type="submit"]');
    await expect(page.locator('#station')).toHaveText('Kitchen');
    await expect(page.locator('#link')).toHaveAttribute('data-state', 'live');
    await expect(page.locator('#login')).toBeHidden();
    // The activation replaced the device's earlier token.
    expect((await request.get('/api/kds/orders', { headers: devices!.kds })).status()).toBe(401);
  });
});
