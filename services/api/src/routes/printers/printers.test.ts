import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { pollNextJob, recordPrintResult } from '@pos/core/printers/print-jobs';
import { queueOrderReceipt } from '@pos/core/printers/print-dispatch';
import { resolvePrinterToken } from '@pos/core/printers/printer-tokens';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { call, escalate, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';
import { UNKNOWN_KEY_MESSAGE } from './printers.schemas.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let manager: Register;
let cashier: Register;
let owner: string;
let kiosk: string;
let kds: string;

let macSeq = 0x10;
const mac = () => `00:11:62:00:${(macSeq >> 8).toString(16).padStart(2, '0')}:${(macSeq++ & 0xff).toString(16).padStart(2, '0')}`.toUpperCase();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('printers');
  other = await api.seed('printers-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  manager = await signIn(api, m, 'manager', 0);
  cashier = await signIn(api, m, 'cashier', 1);
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
  kds = await api.deviceToken(m, 'kds');
});
afterAll(() => api.close());

const report = (token: string, body: unknown, path = '/api/pos/printers/discovery-report', ip?: string) => api.call('POST', path, { token, deviceKey: true, body, ip });
const bo = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office${path}`, { token, body });
const printerByMac = (mc: string) => tdb.selectFrom('printers').selectAll().where('mac', '=', mc.toUpperCase()).executeTakeFirstOrThrow();
const counts = async () => ({
  printers: Number((await tdb.selectFrom('printers').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n),
  jobs: Number((await tdb.selectFrom('print_jobs').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n),
});
const liveTokens = async (printerId: string) => (await api.deps.db.selectFrom('printer_tokens').select('printer_id').where('printer_id', '=', printerId).execute()).length;
async function discovered(device = manager.device): Promise<string> {
  const mc = mac();
  await api.deps.redis.flushdb();
  const r = await report(device, { printers: [{ mac: mc, model: 'TM-m30III', paper_width_mm: 80 }] });
  expect(r.status).toBe(200);
  return (await printerByMac(mc)).id;
}
async function configured(role: 'receipt' | 'kitchen' = 'receipt', stationId?: string): Promise<string> {
  const id = await discovered();
  const r = await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Counter', role, ...(stationId ? { station_id: stationId } : {}) });
  expect(r.status).toBe(200);
  return id;
}

describe('discovery report (register and kiosk, one contract)', () => {
  test('records one printer per MAC, known counts those on record; the kiosk sees the same record', async () => {
    await api.deps.redis.flushdb();
    const a = mac();
    const b = mac();
    const r = await report(manager.device, { printers: [{ mac: a, ip: '192.168.1.20', model: 'TM-m30III', device_name: 'Counter', serial: 'X1', paper_width_mm: 80 }, { mac: b.replace(/:/g, '-'), mac_source: 'vendor-http' }] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ reported: 2, known: 0 });
    const rowA = await printerByMac(a);
    expect(rowA).toMatchObject({ location_id: m.devices.find((d) => d.type === 'pos')!.location_id, ip: '192.168.1.20', model: 'TM-m30III', paper_width_mm: 80, mac_source: 'ipp-uuid', state: 'unconfigured' });
    expect((await printerByMac(b)).mac_source).toBe('vendor-http');
    const k = await report(kiosk, { printers: [{ mac: a.toLowerCase(), ip: '192.168.1.21' }] }, '/api/kiosk/printers/discovery-report');
    expect(k.status).toBe(200);
    expect(k.body).toEqual({ reported: 1, known: 1 });
    expect((await tdb.selectFrom('printers').select(['id', 'ip']).where('mac', '=', a).execute())).toEqual([{ id: rowA.id, ip: '192.168.1.21' }]);
  });

  test('refusals: 17 entries, a bad MAC, a bad IP, a long string, another width, another key: 422 and nothing written', async () => {
    await api.deps.redis.flushdb();
    const before = await counts();
    const many = Array.from({ length: 17 }, () => ({ mac: mac() }));
    const cases: [unknown, string, string][] = [
      [{ printers: many }, 'printers', 'The printers field must list 1 to 16 printers.'],
      [{ printers: [] }, 'printers', 'The printers field must list 1 to 16 printers.'],
      [{ printers: [{ mac: mac() }, { mac: '00:11:22:33:44' }] }, 'printers.1.mac', 'The mac must be a valid MAC address.'],
      [{ printers: [{ mac: mac(), ip: '300.1.1.1' }] }, 'printers.0.ip', 'The ip must be a valid IP address.'],
      [{ printers: [{ mac: mac(), model: 'x'.repeat(65) }] }, 'printers.0.model', 'The model may not be greater than 64 characters.'],
      [{ printers: [{ mac: mac(), paper_width_mm: 72 }] }, 'printers.0.paper_width_mm', 'The paper width mm must be 58 or 80.'],
      [{ printers: [{ mac: mac() }, { mac: mac(), location_id: m.locations[0]!.id }] }, 'printers.1.location_id', UNKNOWN_KEY_MESSAGE],
    ];
    for (const [body, field, text] of cases) {
      await api.deps.redis.flushdb();
      const r = await report(manager.device, body);
      expect(r.status).toBe(422);
      expect(r.body.errors[field]).toEqual([text]);
    }
    expect(UNKNOWN_KEY_MESSAGE).toBe('A printer entry may only have the keys mac, ip, model, device_name, serial, paper_width_mm, mac_source.');
    expect(await counts()).toEqual(before);
  });

  test('one 422 lists the schema errors and the ip and placeholder-mac checks together, in field order, on both routes', async () => {
    const before = await counts();
    const ipText = 'The ip must be a valid IP address.';
    const widthText = 'The paper width mm must be 58 or 80.';
    const placeholderText = "The mac must be the printer's own address, not 00:00:00:00:00:00 or FF:FF:FF:FF:FF:FF.";
    for (const [token, path] of [[manager.device, '/api/pos/printers/discovery-report'], [kiosk, '/api/kiosk/printers/discovery-report']] as const) {
      await api.deps.redis.flushdb();
      // Before: the schema's error was answered alone (no `printers.0.ip`, no "(and 1 more errors)").
      const one = await report(token, { printers: [{ mac: 'AA:BB:CC:DD:EE:05', ip: '999.1.1.1', paper_width_mm: '80' }] }, path);
      expect(one.status).toBe(422);
      expect(one.body).toEqual({ message: `${ipText} (and 1 more errors)`, errors: { 'printers.0.ip': [ipText], 'printers.0.paper_width_mm': [widthText] } });
      expect(Object.keys(one.body.errors)).toEqual(['printers.0.ip', 'printers.0.paper_width_mm']);

      await api.deps.redis.flushdb();
      const many = await report(
        token,
        {
          printers: [
            { mac: '00:00:00:00:00:00', location_id: 'x', ip: '1.2.3', model: 'x'.repeat(65) },
            { mac: '00:11:22:33:44', ip: 'fe80::1' },
            { mac: 'ff-ff-ff-ff-ff-ff', ip: 'x'.repeat(46), paper_width_mm: 72 },
          ],
        },
        path,
      );
      expect(many.status).toBe(422);
      expect(many.body).toEqual({
        message: `${UNKNOWN_KEY_MESSAGE} (and 7 more errors)`,
        errors: {
          'printers.0.location_id': [UNKNOWN_KEY_MESSAGE],
          'printers.0.mac': [placeholderText],
          'printers.0.ip': [ipText],
          'printers.0.model': ['The model may not be greater than 64 characters.'],
          'printers.1.mac': ['The mac must be a valid MAC address.'],
          'printers.2.mac': [placeholderText],
          'printers.2.ip': [ipText],
          'printers.2.paper_width_mm': [widthText],
        },
      });
      expect(Object.keys(many.body.errors)).toEqual(['printers.0.location_id', 'printers.0.mac', 'printers.0.ip', 'printers.0.model', 'printers.1.mac', 'printers.2.mac', 'printers.2.ip', 'printers.2.paper_width_mm']);

      // A thousand bad entries (the request guard's bound): one 422 of at most 64 issues, the entry
      // checks stopped there too (they were all made and merged one by one before).
      await api.deps.redis.flushdb();
      const flood = await report(token, { printers: Array.from({ length: 1000 }, () => ({ mac: 'FF:FF:FF:FF:FF:FF', ip: 'bad' })) }, path);
      expect(flood.status).toBe(422);
      expect(Object.keys(flood.body.errors).length).toBeLessThanOrEqual(64);
      expect(flood.body.errors.printers).toBeDefined();
      expect(flood.body.errors['printers.0.mac']).toEqual([placeholderText]);
    }
    expect(await counts()).toEqual(before);
  });

  test('throttle printer-discovery: 4 a minute per device, then 429', async () => {
    await api.deps.redis.flushdb();
    for (let i = 0; i < 4; i++) expect((await report(manager.device, { printers: [{ mac: mac() }] })).status).toBe(200);
    const r = await report(manager.device, { printers: [{ mac: mac() }] });
    expect(r.status).toBe(429);
    // Another device has its own budget.
    expect((await report(cashier.device, { printers: [{ mac: mac() }] })).status).toBe(200);
  });

  test('a report refused for its shape counts too: 4 refused reports use the minute up', async () => {
    await api.deps.redis.flushdb();
    // Before: only valid reports were counted, so a device sent any number of refused ones.
    for (let i = 0; i < 4; i++) expect((await report(manager.device, { printers: [] })).status).toBe(422);
    expect((await report(manager.device, { printers: [{ mac: mac() }] })).status).toBe(429);
  });

  test('the register route takes a pos device token only; the kiosk route a kiosk one', async () => {
    await api.deps.redis.flushdb();
    expect((await report(kds, { printers: [{ mac: mac() }] })).status).toBe(403);
    expect((await report(kiosk, { printers: [{ mac: mac() }] })).status).toBe(403);
    expect((await report(manager.device, { printers: [{ mac: mac() }] }, '/api/kiosk/printers/discovery-report')).status).toBe(403);
  });
});

describe('register operator and mint routes', () => {
  test('GET /pos/printers needs a staff session on a pos device; lists the site\'s printers with a state filter', async () => {
    const id = await discovered();
    expect((await api.call('GET', '/api/pos/printers', { token: manager.device, deviceKey: true })).status).toBe(401);
    expect((await api.call('GET', '/api/pos/printers', { token: kiosk, deviceKey: true })).status).toBe(403);
    const all = await call(cashier, 'GET', '/pos/printers');
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: { id: string }) => p.id)).toContain(id);
    const unconf = await call(cashier, 'GET', '/pos/printers?state=unconfigured');
    expect(unconf.body.data.every((p: { state: string }) => p.state === 'unconfigured')).toBe(true);
    expect((await call(cashier, 'GET', '/pos/printers?state=paired')).body.data).toEqual([]);
    expect((await call(cashier, 'GET', '/pos/printers?state=other')).status).toBe(422);
  });

  test('configure is manager level: a cashier gets 403, with an approval token for manage_printers it passes', async () => {
    const id = await discovered();
    const denied = await call(cashier, 'POST', `/pos/printers/${id}/configure`, { name: 'Bar' });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('Unauthorized: Insufficient permissions');
    expect((await printerByMac((await tdb.selectFrom('printers').select('mac').where('id', '=', id).executeTakeFirstOrThrow()).mac)).state).toBe('unconfigured');
    const token = await escalate(cashier, 'manage_printers');
    const ok = await call(cashier, 'POST', `/pos/printers/${id}/configure`, { name: 'Bar', paper_width_mm: 58, approval_token: token });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ id, name: 'Bar', state: 'configured', role: 'receipt', paper_width_mm: 58, online: false, pending_jobs: 0 });
    // The approval token is used once.
    expect((await call(cashier, 'POST', `/pos/printers/${id}/configure`, { name: 'Bar 2', approval_token: token })).status).toBe(403);
  });

  test('a kitchen printer needs a station of its location; a foreign station id is refused like an unknown one', async () => {
    const id = await discovered();
    const none = await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Grill', role: 'kitchen' });
    expect(none.status).toBe(422);
    expect(none.body.errors.station_id).toEqual(['A kitchen printer needs a station.']);
    const foreign = await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Grill', role: 'kitchen', station_id: other.kds.station_id });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors.station_id).toEqual(['The selected station id is invalid.']);
    const ok = await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Grill', role: 'kitchen', station_id: m.kds.station_id });
    expect(ok.body.data).toMatchObject({ role: 'kitchen', station_id: m.kds.station_id });
  });

  test('pairing: manager level; mints a token shown once (hash stored), write confirmed, paired at the first poll', async () => {
    const id = await discovered();
    const early = await call(manager, 'POST', `/pos/printers/${id}/pairing-session`);
    expect(early.status).toBe(409);
    expect(early.body.reason).toBe('printer_unconfigured');
    await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Counter' });
    expect((await call(cashier, 'POST', `/pos/printers/${id}/pairing-session`)).status).toBe(403);
    expect((await call(cashier, 'GET', `/pos/printers/${id}/pairing-session`)).status).toBe(404);
    const started = await call(manager, 'POST', `/pos/printers/${id}/pairing-session`);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ pairing_session: { printer_id: id, state: 'awaiting_write', written_at: null, paired_at: null }, poll_url: 'http://localhost:3100/print/printer-a/sdp', poll_interval_seconds: 5 });
    const token = started.body.printer_token as string;
    expect(token).toStartWith('prt_');
    const stored = await api.deps.db.selectFrom('printer_tokens').selectAll().where('printer_id', '=', id).executeTakeFirstOrThrow();
    expect(stored.token_hash).not.toBe(token);
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(await resolvePrinterToken(api.deps.db, token)).toEqual({ merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database, printer_id: id });
    // A cashier reads and confirms (operator level).
    expect((await call(cashier, 'GET', `/pos/printers/${id}/pairing-session`)).body.pairing_session.state).toBe('awaiting_write');
    const confirmed = await call(cashier, 'POST', `/pos/printers/${id}/pairing-session/confirm-write`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.pairing_session.state).toBe('awaiting_first_poll');
    await pollNextJob(api.deps.db, m.merchant.tenant_database, id, new Date(), 60_000);
    const paired = await call(cashier, 'GET', `/pos/printers/${id}/pairing-session`);
    expect(paired.body.pairing_session.state).toBe('paired');
    const list = await call(cashier, 'GET', '/pos/printers?state=paired');
    expect(list.body.data).toEqual([expect.objectContaining({ id, state: 'paired', online: true })]);
  });

  test('test print needs no escalation and queues a job', async () => {
    const id = await configured();
    const r = await call(cashier, 'POST', `/pos/printers/${id}/test-print`);
    expect(r.status).toBe(202);
    expect(r.body.print_job_id).toMatch(/^J[0-9]+$/);
    const jobs = await tdb.selectFrom('print_jobs').select(['kind', 'state', 'document']).where('printer_id', '=', id).execute();
    expect(jobs.map((j) => [j.kind, j.state])).toEqual([['test', 'queued']]);
    expect(jobs[0]!.document).toContain('TEST PRINT');
  });

  test('another merchant\'s printer, and a printer of another location, are 404', async () => {
    const otherPos = await api.deviceToken(other, 'pos');
    await api.deps.redis.flushdb();
    await report(otherPos, { printers: [{ mac: mac() }] });
    const foreign = (await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('printers').select('id').executeTakeFirstOrThrow()).id;
    for (const [method, path] of [['POST', 'configure'], ['POST', 'pairing-session'], ['GET', 'pairing-session'], ['POST', 'pairing-session/confirm-write'], ['POST', 'test-print']] as const) {
      const r = await call(manager, method, `/pos/printers/${foreign}/${path}`, path === 'configure' ? { name: 'x' } : undefined);
      expect(r.status).toBe(404);
      expect(r.body.message).toBe(path.startsWith('pairing') && method === 'GET' ? 'Unable to locate the printer you requested.' : 'Unable to locate the printer you requested.');
    }
    const id = await discovered();
    await tdb.updateTable('printers').set({ location_id: m.locations[1]!.id }).where('id', '=', id).execute();
    expect((await call(manager, 'POST', `/pos/printers/${id}/test-print`)).status).toBe(404);
  });
});

describe('offline detection', () => {
  test('silent for 2 x interval + 5 s: offline in the register and back-office lists; its jobs wait', async () => {
    const id = await configured();
    await tdb.updateTable('printers').set({ state: 'paired', last_poll_at: new Date(Date.now() - 14_000) }).where('id', '=', id).execute();
    const view = async () => (await call(cashier, 'GET', '/pos/printers')).body.data.find((p: { id: string }) => p.id === id);
    expect((await view()).online).toBe(true);
    await tdb.updateTable('printers').set({ last_poll_at: new Date(Date.now() - 16_000) }).where('id', '=', id).execute();
    await call(cashier, 'POST', `/pos/printers/${id}/test-print`);
    await call(cashier, 'POST', `/pos/printers/${id}/test-print`);
    expect(await view()).toMatchObject({ online: false, pending_jobs: 2 });
    const boList = await bo('GET', '/devices/printers?state=paired');
    expect(boList.status).toBe(200);
    expect(boList.body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ online: false, pending_jobs: 2 });
    const noView = await limitedUserToken(api, m, ['EDIT_DEVICES'], [m.locations[0]!.id]);
    expect((await bo('GET', '/devices/printers', undefined, noView)).status).toBe(403);
    // Back: the jobs print in order.
    const first = await pollNextJob(api.deps.db, m.merchant.tenant_database, id, new Date(), 60_000);
    await recordPrintResult(tdb, id, first!.seq, true, undefined, new Date());
    const second = await pollNextJob(api.deps.db, m.merchant.tenant_database, id, new Date(), 60_000);
    expect(BigInt(second!.seq)).toBeGreaterThan(BigInt(first!.seq));
    expect(await view()).toMatchObject({ online: true, pending_jobs: 1 });
  });
});

describe('what is printed', () => {
  test('a settled register sale queues its receipt on the location\'s receipt printers, with the short signature and the QR', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const till = await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 });
    expect([200, 201, 409]).toContain(till.status);
    const sale = await sell(manager, [line(manager, m.items[0]!.name, 2)], { amount_tendered: 5000 });
    const jobs = await tdb.selectFrom('print_jobs').select(['kind', 'source_key', 'document']).where('printer_id', '=', id).execute();
    expect(jobs.map((j) => [j.kind, j.source_key])).toEqual([['sale_receipt', `sale:${sale.id}`]]);
    const doc = jobs[0]!.document;
    expect(doc).toContain(`Signature: ${sale.body.fiscal.short_signature}`);
    expect(doc).toContain(`<symbol type="qrcode_model_2" level="level_m" width="4">${sale.body.fiscal.verification_url.replace(/&/g, '&amp;')}</symbol>`);
    expect(doc).toContain('Change');
    expect(doc).toContain(`${m.items[0]!.vat_rate}%`);
  });

  test('a printer profile\'s receipt footer is printed under customer receipts', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const profile = await bo('POST', '/printer-profiles', { name: 'Footer', settings: { receipt_footer: ['See you soon!'] } });
    const id = await discovered();
    expect((await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'Front', printer_profile_id: profile.body.data.id })).status).toBe(200);
    await sell(manager, [line(manager, m.items[0]!.name, 1)], { amount_tendered: 5000 });
    const [job] = await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', id).execute();
    expect(job!.document).toContain('See you soon!');
  });

  test('receipt settings of the location: a PUT then a settled sale prints their header and footer, without the address', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const loc = (await tdb.selectFrom('printers').select('location_id').where('id', '=', id).executeTakeFirstOrThrow()).location_id!;
    await tdb.updateTable('locations').set({ address: 'Rue Haute 1, 1000 Brussels', vat_no: 'BE0123456789' }).where('id', '=', loc).execute();
    const put = await bo('PUT', `/settings/receipts/${loc}`, { header: 'Welcome to our shop', footer: 'Thanks, come again', show_address: false, show_order_number: false });
    expect(put.status).toBe(200);
    const sale = await sell(manager, [line(manager, m.items[0]!.name, 1)], { amount_tendered: 5000 });
    const [job] = await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', id).where('source_key', '=', `sale:${sale.id}`).execute();
    const doc = job!.document;
    expect(doc).toContain('<text>Welcome to our shop&#10;</text>');
    expect(doc).toContain('<text>Thanks, come again&#10;</text>');
    expect(doc).not.toContain('Rue Haute 1');
    expect(doc).toContain('VAT BE0123456789');
    expect(doc).not.toContain(sale.id.slice(-8).toUpperCase());
    // show_address back on, VAT number off: the address returns, the VAT line goes.
    expect((await bo('PUT', `/settings/receipts/${loc}`, { show_address: true, show_vat_number: false, show_order_number: true })).status).toBe(200);
    const again = await sell(manager, [line(manager, m.items[0]!.name, 1)], { amount_tendered: 5000 });
    const [job2] = await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', id).where('source_key', '=', `sale:${again.id}`).execute();
    expect(job2!.document).toContain('Rue Haute 1, 1000 Brussels');
    expect(job2!.document).not.toContain('VAT BE0123456789');
    expect(job2!.document).toContain(`Ticket ${again.id.slice(-8).toUpperCase()}`);
    await tdb.deleteFrom('location_receipts').where('location_id', '=', loc).execute();
  });

  test('receipt settings apply to a kiosk order receipt too', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const loc = (await tdb.selectFrom('printers').select('location_id').where('id', '=', id).executeTakeFirstOrThrow()).location_id!;
    await tdb.updateTable('locations').set({ address: 'Rue Haute 1, 1000 Brussels' }).where('id', '=', loc).execute();
    expect((await bo('PUT', `/settings/receipts/${loc}`, { header: 'Kiosk hello', footer: 'Kiosk bye', show_address: false })).status).toBe(200);
    const tx = crypto.randomUUID();
    await tdb
      .insertInto('transactions')
      .values({ id: tx, location_id: loc, device_id: null, channel: 'kiosk', order_no: 4242, status: 'Complete', order_status: null, payment_provider: 'card-a', payment_snapshot: JSON.stringify({}), idempotency_key: `rs-${tx}`, all_idempotency_keys: [`rs-${tx}`], receipt_no: 4242, subtotal: 990, discount: 0, vat: 56, total: 990, by_vat_rate: JSON.stringify([{ rate: 6, net: 934, vat: 56, gross: 990 }]), offers: JSON.stringify([]), menu_version: null, customer_id: null, loyalty_token: null, cart_session_id: null, completed_at: new Date() } as never)
      .execute();
    expect(await queueOrderReceipt(tdb, tx, new Date())).toBe(1);
    const [job] = await tdb.selectFrom('print_jobs').select(['kind', 'document']).where('printer_id', '=', id).execute();
    expect(job!.kind).toBe('order_receipt');
    expect(job!.document).toContain('Kiosk order 4242');
    expect(job!.document).toContain('<text>Kiosk hello&#10;</text>');
    expect(job!.document).toContain('<text>Kiosk bye&#10;</text>');
    expect(job!.document).not.toContain('Rue Haute 1');
    await tdb.deleteFrom('location_receipts').where('location_id', '=', loc).execute();
  });

  test('a refund prints its receipt (negative lines, cash handed back, signature)', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const sale = await sell(manager, [line(manager, m.items[0]!.name, 1)], { amount_tendered: 5000 });
    const refund = await call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'full' });
    expect(refund.status).toBe(200);
    const jobs = await tdb.selectFrom('print_jobs').select(['kind', 'source_key', 'document']).where('printer_id', '=', id).where('kind', '=', 'refund_receipt').execute();
    expect(jobs.map((j) => j.source_key)).toEqual([`refund:${refund.body.refund.id}`]);
    expect(jobs[0]!.document).toContain('REFUND');
    expect(jobs[0]!.document).toContain(`-${(m.items[0]!.unit_price / 100).toFixed(2)}`);
    if (refund.body.refund.fiscal?.short_signature) expect(jobs[0]!.document).toContain(`Signature: ${refund.body.refund.fiscal.short_signature}`);
  });

  test('the refund of a cash-rounded sale prints the cash handed back and the rounding', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    // Espresso 2.80 - 0.03 + Croissant 2.20 = 4.97, paid 4.95 in cash.
    const sale = await sell(manager, [line(manager, 'Espresso', 1, { discount: { type: 'amount', value: 3 } }), line(manager, 'Croissant', 1)], { amount_tendered: 495 });
    const refund = await call(manager, 'POST', '/pos/refunds', { transaction_id: sale.transaction_id, mode: 'full' });
    expect(refund.body.refund).toMatchObject({ amount: 495, rounding: 2 });
    const [job] = await tdb.selectFrom('print_jobs').select('document').where('printer_id', '=', id).where('kind', '=', 'refund_receipt').execute();
    expect(job!.document).toMatch(/Cash +-4\.95/);
    expect(job!.document).toMatch(/Rounding +0\.02/);
  });

  test('firing an order prints a kitchen ticket on the printer of the station its lines go to', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const kitchen = await configured('kitchen', m.kds.station_id);
    const receipt = await configured('receipt');
    const order = crypto.randomUUID();
    expect((await call(manager, 'PUT', `/pos/orders/${order}`, { lines: [line(manager, m.items[0]!.name, 2)], table_number: 'T7' })).status).toBe(200);
    expect((await call(manager, 'POST', `/pos/orders/${order}/fire`)).status).toBe(200);
    const jobs = await tdb.selectFrom('print_jobs').select(['printer_id', 'kind', 'document']).where('printer_id', 'in', [kitchen, receipt]).execute();
    expect(jobs.map((j) => [j.printer_id, j.kind])).toEqual([[kitchen, 'kitchen_ticket']]);
    expect(jobs[0]!.document).toContain('Order T7');
    expect(jobs[0]!.document).toContain(`2 x ${m.items[0]!.name}`);
  });

  test('an X report request prints on the receipt printers', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const r = await call(manager, 'GET', '/pos/business-day/x-report');
    expect(r.status).toBe(200);
    const jobs = await tdb.selectFrom('print_jobs').select(['kind', 'document']).where('printer_id', '=', id).execute();
    expect(jobs.map((j) => j.kind)).toEqual(['report']);
    expect(jobs[0]!.document).toContain('X report');
  });

  test('kiosk test-print-receipt queues a test job on the kiosk location\'s receipt printers', async () => {
    await tdb.updateTable('printers').set({ state: 'retired' }).execute();
    const id = await configured();
    const r = await api.call('POST', '/api/kiosk/test-print-receipt', { token: kiosk, deviceKey: true });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ status: 'queued', printers: 1 });
    expect((await tdb.selectFrom('print_jobs').select('kind').where('printer_id', '=', id).execute()).map((j) => j.kind)).toEqual(['test']);
  });
});

describe('back office', () => {
  test('unconfigured printers, configure, pairing, test print, rotate, retire with the spec 2 permissions', async () => {
    const id = await discovered();
    const viewer = await limitedUserToken(api, m, ['VIEW_DEVICES'], [m.locations[0]!.id]);
    const editor = await limitedUserToken(api, m, ['VIEW_DEVICES', 'EDIT_DEVICES'], [m.locations[0]!.id]);
    const elsewhere = await limitedUserToken(api, m, ['VIEW_DEVICES', 'EDIT_DEVICES', 'DELETE_DEVICES'], [m.locations[1]!.id]);
    const list = await bo('GET', '/devices/unconfigured-printers', undefined, viewer);
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toContain(id);
    expect((await bo('GET', '/devices/unconfigured-printers', undefined, elsewhere)).body.data).toEqual([]);
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Front' }, viewer)).status).toBe(403);
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Front' }, elsewhere)).status).toBe(403);
    const conf = await bo('POST', `/devices/${id}/printer/configure`, { name: 'Front' }, editor);
    expect(conf.status).toBe(200);
    expect(conf.body.data.state).toBe('configured');
    expect((await bo('POST', `/devices/${id}/printer/rotate-token`, undefined, editor)).status).toBe(409);
    const pairing = await bo('POST', `/devices/${id}/printer/pairing-session`, undefined, editor);
    expect(pairing.status).toBe(200);
    const first = pairing.body.printer_token as string;
    expect((await bo('GET', `/devices/${id}/printer/pairing-session`, undefined, viewer)).body.pairing_session.state).toBe('awaiting_write');
    expect((await bo('POST', `/devices/${id}/printer/pairing-session/confirm-write`, undefined, viewer)).status).toBe(403);
    expect((await bo('POST', `/devices/${id}/printer/pairing-session/confirm-write`, undefined, editor)).body.pairing_session.state).toBe('awaiting_first_poll');
    expect((await bo('POST', `/devices/${id}/printer/test-print`, undefined, editor)).status).toBe(202);
    const rotated = await bo('POST', `/devices/${id}/printer/rotate-token`, undefined, editor);
    expect(rotated.status).toBe(200);
    expect(await resolvePrinterToken(api.deps.db, first)).toBeNull();
    expect((await resolvePrinterToken(api.deps.db, rotated.body.printer_token))?.printer_id).toBe(id);
    expect((await bo('POST', `/devices/${id}/printer/retire`, undefined, editor)).status).toBe(403);
    const retired = await bo('POST', `/devices/${id}/printer/retire`);
    expect(retired.body).toEqual({ status: 'success', cancelled_jobs: 1 });
    expect(await resolvePrinterToken(api.deps.db, rotated.body.printer_token)).toBeNull();
    expect((await bo('GET', `/devices/${id}/printer/pairing-session`)).status).toBe(404);
  });

  test('printer profiles: CRUD and options with their permissions', async () => {
    const viewer = await limitedUserToken(api, m, ['VIEW_DEVICE_PROFILE'], [m.locations[0]!.id]);
    expect((await bo('POST', '/printer-profiles', { name: 'Kitchen 58' }, viewer)).status).toBe(403);
    const created = await bo('POST', '/printer-profiles', { name: 'Kitchen 58', settings: { paper_width_mm: 58, receipt_footer: ['Thanks'] } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ name: 'Kitchen 58', settings: { paper_width_mm: 58, poll_interval_seconds: 5, receipt_footer: ['Thanks'], print_kitchen_modifiers: true }, printers_count: 0 });
    const pid = created.body.data.id;
    expect((await bo('GET', '/printer-profiles', undefined, viewer)).body.data.map((p: { id: string }) => p.id)).toContain(pid);
    expect((await bo('GET', '/printer-profiles/options', undefined, viewer)).body.data).toContainEqual({ value: pid, label: 'Kitchen 58' });
    expect((await bo('GET', `/printer-profiles/${pid}`, undefined, viewer)).body.data.id).toBe(pid);
    expect((await bo('PUT', `/printer-profiles/${pid}`, { name: 'x' }, viewer)).status).toBe(403);
    expect((await bo('PUT', `/printer-profiles/${pid}`, { settings: { poll_interval_seconds: 10 } })).body.data.settings).toMatchObject({ paper_width_mm: 58, poll_interval_seconds: 10 });
    expect((await bo('PUT', `/printer-profiles/${pid}`, { settings: { receipt_footer: ['a', 'b', 'c', 'd', 'e'] } })).status).toBe(422);
    const id = await discovered();
    expect((await call(manager, 'POST', `/pos/printers/${id}/configure`, { name: 'P', printer_profile_id: pid })).body.data.printer_profile_id).toBe(pid);
    expect((await bo('DELETE', `/printer-profiles/${pid}`, undefined, viewer)).status).toBe(403);
    expect((await bo('DELETE', `/printer-profiles/${pid}`)).body).toEqual({ status: 'success', unbound_printers: 1 });
    expect((await bo('GET', `/printer-profiles/${pid}`)).status).toBe(404);
  });

  test('a retired printer seen again is unconfigured and unpaired: pairing-session and rotate-token are 409 printer_unconfigured; once configured, rotate-token is 409 printer_not_paired until paired', async () => {
    const id = await discovered();
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Bar' })).status).toBe(200);
    expect((await bo('POST', `/devices/${id}/printer/pairing-session`)).status).toBe(200);
    expect((await bo('POST', `/devices/${id}/printer/retire`)).status).toBe(200);
    expect(await tdb.selectFrom('printers').select(['state', 'token_issued_at']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ state: 'retired', token_issued_at: null });
    expect(await liveTokens(id)).toBe(0);
    expect((await bo('POST', `/devices/${id}/printer/rotate-token`)).status).toBe(404);

    const mc = (await tdb.selectFrom('printers').select('mac').where('id', '=', id).executeTakeFirstOrThrow()).mac;
    await api.deps.redis.flushdb();
    expect((await report(manager.device, { printers: [{ mac: mc }] })).body).toEqual({ reported: 1, known: 1 });
    expect((await printerByMac(mc)).state).toBe('unconfigured');
    expect(await bo('POST', `/devices/${id}/printer/pairing-session`)).toMatchObject({ status: 409, body: { reason: 'printer_unconfigured' } });
    expect(await bo('POST', `/devices/${id}/printer/rotate-token`)).toMatchObject({ status: 409, body: { reason: 'printer_unconfigured' } });
    expect(await tdb.selectFrom('printers').select(['state', 'token_issued_at']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ state: 'unconfigured', token_issued_at: null });
    expect(await liveTokens(id)).toBe(0);

    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Bar' })).body.data.state).toBe('configured');
    expect(await bo('POST', `/devices/${id}/printer/rotate-token`)).toMatchObject({ status: 409, body: { reason: 'printer_not_paired' } });
    expect(await liveTokens(id)).toBe(0);
    expect((await bo('POST', `/devices/${id}/printer/pairing-session`)).status).toBe(200);
    expect((await bo('POST', `/devices/${id}/printer/rotate-token`)).status).toBe(200);
    expect(await liveTokens(id)).toBe(1);
  });

  test('a retired printer seen again at another location is unconfigured there, without its old station; a live one keeps its location', async () => {
    const id = await configured('kitchen', m.kds.station_id);
    const first = await printerByMac((await tdb.selectFrom('printers').select('mac').where('id', '=', id).executeTakeFirstOrThrow()).mac);
    const elsewhere = m.locations.find((l) => l.id !== first.location_id)!;
    const live = await configured();
    const liveMac = (await tdb.selectFrom('printers').select('mac').where('id', '=', live).executeTakeFirstOrThrow()).mac;
    expect((await bo('POST', `/devices/${id}/printer/retire`)).status).toBe(200);
    // The kiosk now stands at the other location and reports both printers there.
    const kioskDevice = m.devices.find((d) => d.type === 'kiosk')!;
    const home = (await tdb.selectFrom('devices').select('location_id').where('id', '=', kioskDevice.id).executeTakeFirstOrThrow()).location_id;
    await tdb.updateTable('devices').set({ location_id: elsewhere.id }).where('id', '=', kioskDevice.id).execute();
    try {
      await api.deps.redis.flushdb();
      const r = await report(kiosk, { printers: [{ mac: first.mac }, { mac: liveMac }] }, '/api/kiosk/printers/discovery-report');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ reported: 2, known: 2 });
    } finally {
      await tdb.updateTable('devices').set({ location_id: home }).where('id', '=', kioskDevice.id).execute();
    }
    expect(await printerByMac(first.mac)).toMatchObject({ id, location_id: elsewhere.id, state: 'unconfigured', role: 'receipt', station_id: null, retired_at: null });
    expect((await bo('GET', `/devices/unconfigured-printers?location_id=${elsewhere.id}`)).body.data.map((p: { id: string }) => p.id)).toContain(id);
    // Configured at its new location as a kitchen printer of a station there.
    const station = await bo('POST', '/devices/stations', { location_id: elsewhere.id, name: 'Moved grill', category_ids: [] });
    expect(station.status).toBe(201);
    const conf = await bo('POST', `/devices/${id}/printer/configure`, { name: 'Grill', role: 'kitchen', station_id: station.body.data.id });
    expect(conf.status).toBe(200);
    expect(conf.body.data).toMatchObject({ location_id: elsewhere.id, station_id: station.body.data.id, state: 'configured' });
    // A printer in service is never moved by a report from elsewhere.
    expect(await printerByMac(liveMac)).toMatchObject({ id: live, location_id: first.location_id, state: 'configured' });
  });

  test('retire racing pairing-session, rotate-token or configure: the printer ends retired with no live token; the other call is 200 (before) or 404 (after)', async () => {
    const others = ['pairing-session', 'rotate-token', 'configure'] as const;
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      const id = await discovered();
      expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Race' })).status).toBe(200);
      expect((await bo('POST', `/devices/${id}/printer/pairing-session`)).status).toBe(200);
      const other = others[i % 3]!;
      const [ret, raced] = await Promise.all([bo('POST', `/devices/${id}/printer/retire`), bo('POST', `/devices/${id}/printer/${other}`, other === 'configure' ? { name: 'Raced' } : undefined)]);
      const state = (await tdb.selectFrom('printers').select('state').where('id', '=', id).executeTakeFirstOrThrow()).state;
      seen.push(`${other}: retire ${ret.status}, ${other} ${[200, 404].includes(raced.status) ? 'ok' : raced.status}, ${state}, tokens ${await liveTokens(id)}`);
    }
    expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => `${others[i % 3]}: retire 200, ${others[i % 3]} ok, retired, tokens 0`));
  });

  test('retire racing a test print: the printer ends retired with no waiting job; the test print is 202 (before) or 404 (after)', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = await discovered();
      expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Race' })).status).toBe(200);
      const [ret, printed] = await Promise.all([bo('POST', `/devices/${id}/printer/retire`), bo('POST', `/devices/${id}/printer/test-print`)]);
      const waiting = await tdb.selectFrom('print_jobs').select('id').where('printer_id', '=', id).where('state', 'in', ['queued', 'leased']).execute();
      seen.push(`retire ${ret.status}, test print ${[202, 404].includes(printed.status) ? 'ok' : printed.status}, waiting ${waiting.length}`);
    }
    expect(seen).toEqual(Array(8).fill('retire 200, test print ok, waiting 0'));
  });

  test('printer profiles: two concurrent updates of different settings keys both survive (the merge locks the row)', async () => {
    for (let i = 0; i < 8; i++) {
      const c = await bo('POST', '/printer-profiles', { name: `Concurrent ${i}` });
      expect(c.status).toBe(201);
      const pid = c.body.data.id;
      const [r1, r2] = await Promise.all([bo('PUT', `/printer-profiles/${pid}`, { settings: { receipt_footer: ['Thanks!'] } }), bo('PUT', `/printer-profiles/${pid}`, { settings: { paper_width_mm: 58 } })]);
      expect([r1.status, r2.status]).toEqual([200, 200]);
      expect((await bo('GET', `/printer-profiles/${pid}`)).body.data.settings).toEqual({ paper_width_mm: 58, poll_interval_seconds: 5, receipt_footer: ['Thanks!'], print_kitchen_modifiers: true });
    }
  });

  test('a merchant without the first-party marker gets 403 on the printer groups', async () => {
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', other.merchant.id).execute();
    const otherOwner = await api.ownerToken(other);
    expect((await bo('GET', '/devices/unconfigured-printers', undefined, otherOwner)).status).toBe(403);
    expect((await bo('GET', '/printer-profiles', undefined, otherOwner)).status).toBe(403);
    await api.deps.db.updateTable('merchants').set({ pos_provider: 'firstparty' }).where('id', '=', other.merchant.id).execute();
  });
});

describe('finished print jobs do not pile up', () => {
  test('a printer\'s jobs finished over 7 days ago are deleted as its jobs finish (about one in 100); waiting and recent ones stay', async () => {
    const id = await configured();
    const now = new Date();
    const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
    const job = (seq: number, state: 'printed' | 'failed' | 'cancelled' | 'queued', finished: Date | null) => ({
      id: crypto.randomUUID(),
      seq: String(seq),
      printer_id: id,
      kind: 'order_receipt',
      source_key: `order:${crypto.randomUUID()}`,
      document: '<epos-print/>',
      state,
      attempts: state === 'queued' ? 0 : 1,
      created_at: finished ?? days(9),
      printed_at: state === 'printed' ? finished : null,
      finished_at: finished,
    });
    const base = 9_000_000_000 + Math.floor(Math.random() * 1_000_000) * 1000;
    const old = [job(base + 1, 'printed', days(8)), job(base + 2, 'failed', days(9)), job(base + 3, 'cancelled', days(30))];
    const keep = [job(base + 4, 'printed', days(6)), job(base + 5, 'queued', null)];
    // The job whose result arrives: leased, its seq a multiple of 100 (the prune's turn).
    const head = { ...job(base + 100, 'queued', null), state: 'leased' as const, attempts: 1, lease_until: new Date(now.getTime() + 60_000) };
    await tdb.insertInto('print_jobs').values([...old, ...keep, head]).execute();
    // A result whose seq is not the prune's turn deletes nothing.
    const other = { ...job(base + 101, 'queued', null), state: 'leased' as const, attempts: 1, lease_until: new Date(now.getTime() + 60_000) };
    await tdb.insertInto('print_jobs').values(other).execute();
    expect(await recordPrintResult(tdb, id, other.seq, true, undefined, now)).toBe('printed');
    const left = async () => (await tdb.selectFrom('print_jobs').select('id').where('printer_id', '=', id).execute()).map((r) => r.id).sort();
    expect(await left()).toEqual([...old, ...keep, head, other].map((j) => j.id).sort());
    // Before: every printed receipt and kitchen ticket kept its document forever.
    expect(await recordPrintResult(tdb, id, head.seq, true, undefined, now)).toBe('printed');
    expect(await left()).toEqual([...keep, head, other].map((j) => j.id).sort());
  });
});
