import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type APIRequestContext, clientAddressFor } from '../support/test.ts';
import { RegisterClient } from '../support/register-client.ts';
import { loadSeed } from '../support/seed.ts';
import { E2E } from '../support/stack-env.ts';

/**
 * Issue 15 "Done when": a simulated printer (the real simulator process, polling the real poll service)
 * is discovered and paired from the register; a register sale's receipt, with the fiscal short
 * signature and the verification URL as a QR code, lands in the simulator's output; with the paper out
 * the next receipt waits, and once the paper is back it is printed exactly once.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const simPort = Number(process.env.E2E_PRINTER_SIM_PORT ?? E2E.printerPort + 7);
const simUrl = (p: string) => `http://127.0.0.1:${simPort}${p}`;
const output = join(root, 'e2e', '.run', 'printer-sim.jsonl');
const MAC = '00:11:62:E2:E0:01';

interface Printed {
  printjobid: string;
  lines: string[];
  qr: string[];
}
const printedFile = (): Printed[] => {
  try {
    return readFileSync(output, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Printed);
  } catch {
    return [];
  }
};
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test.describe.serial('receipt printer', () => {
  const seed = loadSeed();
  const location = seed.locations[0]!;
  const pin = (role: 'manager' | 'cashier') => seed.staff.find((s) => s.role === role)!.pin;
  const espresso = seed.items[0]!;
  let http: APIRequestContext;
  let pos: RegisterClient;
  let sim: ChildProcess;
  let printerId: string;
  let tillId: string;

  test.beforeAll(async () => {
    mkdirSync(dirname(output), { recursive: true });
    rmSync(output, { force: true });
    sim = spawn('bun', ['packages/providers/src/printer-a/main.ts'], { cwd: root, env: { ...process.env, PRINTER_SIM_PORT: String(simPort), PRINTER_SIM_OUTPUT: output, PRINTER_SIM_INTERVAL_MS: '250' }, stdio: 'inherit' });
    await until('the printer simulator', () => fetch(simUrl('/_sim/state')).then((r) => r.ok, () => undefined));
  });
  test.afterAll(() => {
    sim?.kill('SIGTERM');
  });

  test('a register discovers the printer; a manager configures and pairs it; the simulator polls and it is paired', async ({ playwright }) => {
    http = await playwright.request.newContext({ baseURL: `http://127.0.0.1:${E2E.apiPort}`, extraHTTPHeaders: { 'x-forwarded-for': clientAddressFor(test.info().testId) } });
    const login = await http.post('/api/login', { data: seed.backoffice });
    const owner = { authorization: `Bearer ${(await login.json()).token}` };
    const created = await http.post('/api/back-office/devices', { headers: owner, data: { name: 'Printer register', type: 'pos', location_id: location.id } });
    expect(created.status()).toBe(201);
    pos = new RegisterClient(http, E2E.env.DEVICE_API_KEY);
    await pos.activate((await created.json()).data.activation_code);

    const reported = await pos.send('POST', '/pos/printers/discovery-report', { printers: [{ mac: MAC, ip: '192.168.1.50', model: 'TM-m30III', paper_width_mm: 80 }] }, false);
    expect(reported.status()).toBe(200);
    expect(await reported.json()).toEqual({ reported: 1, known: 0 });

    await pos.pinLogin(pin('manager'));
    const list = await (await pos.send('GET', '/pos/printers?state=unconfigured')).json();
    const found = list.data.find((p: { mac: string }) => p.mac === MAC);
    expect(found).toMatchObject({ state: 'unconfigured', online: false, model: 'TM-m30III' });
    printerId = found.id;

    const configured = await pos.send('POST', `/pos/printers/${printerId}/configure`, { name: 'Counter', role: 'receipt' });
    expect(configured.status()).toBe(200);
    const pairing = await pos.send('POST', `/pos/printers/${printerId}/pairing-session`, {});
    expect(pairing.status()).toBe(200);
    const { printer_token, poll_url, pairing_session } = await pairing.json();
    expect(pairing_session.state).toBe('awaiting_write');
    expect(poll_url).toBe(`http://127.0.0.1:${E2E.printerPort}/print/printer-a/sdp`);
    // What the operator's app writes into the printer.
    expect((await fetch(simUrl('/_sim/pair'), { method: 'POST', body: JSON.stringify({ poll_url, token: printer_token }) })).status).toBe(200);
    expect((await pos.send('POST', `/pos/printers/${printerId}/pairing-session/confirm-write`)).status()).toBe(200);
    await until('paired', async () => (await (await pos.send('GET', `/pos/printers/${printerId}/pairing-session`)).json()).pairing_session.state === 'paired');
    const paired = (await (await pos.send('GET', '/pos/printers?state=paired')).json()).data.find((p: { id: string }) => p.id === printerId);
    expect(paired).toMatchObject({ state: 'paired', online: true });
    // With its token, a printer with nothing to print gets the empty text/xml 200.
    const idle = await fetch(`${poll_url}?token=${encodeURIComponent(printer_token)}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=local_printer' });
    expect(idle.status).toBe(200);
    expect(idle.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await idle.text()).toBe('');
  });

  async function sale(): Promise<{ short_signature: string; verification_url: string }> {
    const id = crypto.randomUUID();
    const saved = await pos.saveOrder(id, [{ uuid: crypto.randomUUID(), item_id: espresso.id, qty: 1, unit_price: espresso.unit_price, price_source: 'catalog', modifiers: [] }]);
    expect(saved.status()).toBe(200);
    const settled = await pos.settle(id, { amount_tendered: Math.ceil(espresso.unit_price / 100) * 100 + 100 });
    expect(settled.status()).toBe(200);
    const body = await settled.json();
    expect(body.fiscal.short_signature).toBeTruthy();
    return body.fiscal;
  }

  test('a settled register sale prints its receipt with the short signature and the QR code', async () => {
    const till = await pos.send('POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 0 });
    expect(till.status()).toBe(200);
    tillId = (await till.json()).id;
    const fiscal = await sale();
    const receipt = await until('the receipt', () => printedFile().find((p) => p.lines.includes(`Signature: ${fiscal.short_signature}`)));
    expect(receipt.qr).toEqual([fiscal.verification_url]);
    expect(receipt.lines.some((l) => l.startsWith('1 x ') && l.includes(espresso.name))).toBe(true);
  });

  test('paper out: the next receipt waits; paper back: printed exactly once', async () => {
    await fetch(simUrl('/_sim/paper-out'), { method: 'POST' });
    const fiscal = await sale();
    const signature = `Signature: ${fiscal.short_signature}`;
    // The printer reports paper out at least twice: the job is offered again and still waits.
    await until('paper-out reports', async () => {
      const s = (await (await fetch(simUrl('/_sim/state'))).json()) as { reports: { code: string }[] };
      return s.reports.filter((r: { code: string }) => r.code === 'EPTR_REC_EMPTY').length >= 2 || undefined;
    });
    expect(printedFile().filter((p) => p.lines.includes(signature))).toEqual([]);
    const waiting = (await (await pos.send('GET', '/pos/printers?state=paired')).json()).data.find((p: { id: string }) => p.id === printerId);
    expect(waiting.pending_jobs).toBeGreaterThanOrEqual(1);

    await fetch(simUrl('/_sim/paper-in'), { method: 'POST' });
    await until('the waiting receipt', () => printedFile().find((p) => p.lines.includes(signature)));
    // Several more polls: never printed a second time.
    const simState = async () => (await (await fetch(simUrl('/_sim/state'))).json()) as { polls: number };
    const polls = (await simState()).polls;
    await until('more polls', async () => ((await simState()).polls >= polls + 4 ? true : undefined));
    expect(printedFile().filter((p) => p.lines.includes(signature)).length).toBe(1);
    const after = (await (await pos.send('GET', '/pos/printers?state=paired')).json()).data.find((p: { id: string }) => p.id === printerId);
    expect(after.pending_jobs).toBe(0);
  });

  test('the till is closed again (the day suite closes the business day after this one)', async () => {
    const ended = await pos.send('POST', `/pos/tills/${tillId}/end`);
    expect(ended.status()).toBe(200);
    const counted = await pos.send('POST', `/pos/tills/${tillId}/count`, { counted: 2 * espresso.unit_price });
    expect(counted.status()).toBe(200);
    // The manager holds approve_as_manager: a variance needs no escalation.
    const closed = await pos.send('POST', `/pos/tills/${tillId}/close`, {});
    expect(closed.status()).toBe(200);
  });
});
