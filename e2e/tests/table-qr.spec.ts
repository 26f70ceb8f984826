import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { expect, test, type APIRequestContext } from '../support/test.ts';
import { loadSeed } from '../support/seed.ts';
import { cardBSimUrl, E2E } from '../support/stack-env.ts';

/**
 * Issue 16 item 2: the back office downloads a table's QR code, a guest scans it (the URL the code
 * reads), the table session opens; an order at the location is paid (the kiosk's card-b terminal on
 * the simulator, captured by the worker) and bound to the session, where the guest then finds it.
 */

async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function ownerHeaders(request: APIRequestContext) {
  const { token } = await (await request.post('/api/login', { data: loadSeed().backoffice })).json();
  return { authorization: `Bearer ${token}` };
}

/** A paid order at the kiosk's location (location [0], where the seeded table section is). */
async function paidKioskOrder(request: APIRequestContext, owner: Record<string, string>) {
  const seed = loadSeed();
  const code = (await (await request.post(`/api/back-office/devices/${seed.kiosk.device_id}/new-activation-code`, { headers: owner })).json()).data.activation_code;
  const act = await (await request.post('/api/device-auth/activate', { data: { activation_code: code } })).json();
  const headers = { authorization: `Bearer ${act.token}`, 'x-client-api-key': E2E.env.DEVICE_API_KEY };
  const item = seed.items[0]!;
  const created = await request.post('/api/kiosk/payment/create-intent', { headers, data: { lines: [{ item_id: item.id, qty: 2 }] } });
  expect(created.status()).toBe(200);
  const t = (await created.json()).data;
  const key = encodeURIComponent(t.idempotency_key);
  expect((await request.post(cardBSimUrl(`/_sim/sessions/${key}/complete`))).status()).toBe(200);
  const done = await eventually(
    async () => (await (await request.get(`/api/kiosk/payment/details/${key}`, { headers })).json()).data,
    (d) => d.status === 'Complete',
  );
  expect(done).toMatchObject({ id: t.id, status: 'Complete', total: 2 * item.unit_price });
  return done as { id: string; total: number; order_no: number };
}

test.describe.serial('table QR ordering', () => {
  test('download a QR code, scan it, pay, bind the order and find it on the session', async ({ request }) => {
    const seed = loadSeed();
    const section = seed.table_sections[0]!;
    expect(section).toMatchObject({ location_id: seed.locations[0]!.id, tables: 20 });
    const owner = await ownerHeaders(request);

    // The printed code of table 4: a real PNG whose code reads the scan URL.
    const file = await request.post(`/api/back-office/qr-ordering/${section.location_id}/download-multiple`, { headers: owner, data: { table_section_id: section.id, tables: [4], format: 'png', size: 256 } });
    expect(file.status()).toBe(200);
    expect(file.headers()['content-type']).toBe('image/png');
    const png = PNG.sync.read(await file.body());
    const url = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
    expect(url).toMatch(new RegExp(`/table-qr-ordering/${section.location_id}/${section.id}/4$`));

    // The guest scans it: the session opens; a second phone at the table joins it.
    const path = `/api${new URL(url!).pathname.replace(/^.*?(\/table-qr-ordering\/)/, '$1')}`;
    const scanned = await request.get(path);
    expect(scanned.status()).toBe(200);
    const opened = await scanned.json();
    expect(opened).toMatchObject({ opened: true, data: { location_id: section.location_id, table_section_id: section.id, table_number: 4, status: 'open', orders: [], total: 0 } });
    const session = opened.data;
    const joined = await (await request.get(path)).json();
    expect(joined).toEqual({ opened: false, data: session });

    // An unpaid order cannot be bound; a paid one can, and shows on the session.
    const unpaid = await request.post(`/api/table-qr-ordering/${section.location_id}/session/${session.id}/bind-order`, { data: { transaction_id: crypto.randomUUID() } });
    expect(unpaid.status()).toBe(404);
    const order = await paidKioskOrder(request, owner);
    const bound = await request.post(`/api/table-qr-ordering/${section.location_id}/session/${session.id}/bind-order`, { data: { transaction_id: order.id } });
    expect(bound.status()).toBe(200);
    const details = await (await request.get(`/api/table-qr-ordering/${section.location_id}/session/${session.id}`)).json();
    expect(details).toEqual((await bound.json()));
    expect(details.data.orders).toEqual([expect.objectContaining({ status: 'Complete', total: order.total, order_no: order.order_no })]);
    expect(JSON.stringify(details)).not.toContain(order.id);
    expect(details.data.total).toBe(order.total);
    // The back office sees the open session on the section.
    const shown = await (await request.get(`/api/back-office/table-sections/${section.id}`, { headers: owner })).json();
    expect(shown.data).toMatchObject({ id: section.id, tables: 20, open_sessions: expect.any(Number) });
    expect(shown.data.open_sessions).toBeGreaterThanOrEqual(1);
  });
});
