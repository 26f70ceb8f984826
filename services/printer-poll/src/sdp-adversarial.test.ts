import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createDatabase, type DatabaseHandle } from '@pos/db';
import { createLogger, createRedis, type Logger } from '@pos/kernel';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { enqueuePrintJob, pollQueue } from '@pos/core/printers/print-jobs';
import { hashPrinterToken } from '@pos/core/printers/printer-tokens';
import { reportDiscoveredPrinters } from '@pos/core/printers/discovery-report';
import { configurePrinter, getPairing, retirePrinter, rotatePrinterToken, startPairing } from '@pos/core/printers/printer-admin';
import { findPrinter } from '@pos/core/printers/printer-records';
import type Redis from 'ioredis';
import { createPrinterPollApp } from './app.ts';
import type { PrinterPollDeps } from './context.ts';
import { seedPairedPrinter } from './test-printer.ts';
import { pollServeOptions } from './serve-options.ts';
import { PollState } from './poll-state.ts';

/** Adversarial probes of the poll route: odd tokens, odd bodies, odd reports. */
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const FORM = 'application/x-www-form-urlencoded';

let handle: DatabaseHandle;
let redis: Redis;
let deps: PrinterPollDeps;
let mine: Awaited<ReturnType<typeof seedPairedPrinter>>;
let theirs: Awaited<ReturnType<typeof seedPairedPrinter>>;

beforeAll(async () => {
  handle = createDatabase(DATABASE_URL, { max: 4, applicationName: 'sdp-adversarial' });
  redis = createRedis(REDIS_URL, 'sdp-adversarial');
  deps = { db: handle.db, redis, log: createLogger({ service: 'sdp-adversarial' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0), appEnv: 'local' };
  mine = await seedPairedPrinter(handle.db, 'sdp-adv', '00:11:62:AD:00:01');
  theirs = await seedPairedPrinter(handle.db, 'sdp-adv-b', '00:11:62:AD:00:02');
});
afterAll(async () => {
  await mine.drop();
  await theirs.drop();
  redis.disconnect();
  await handle.close();
});

const send = (url: string, init: RequestInit) => createPrinterPollApp(deps).handle(new Request(url, init));
const at = (q: string) => `http://localhost/print/printer-a/sdp${q}`;
const form = (token: string, body: string | ReadableStream, headers: Record<string, string> = {}) => send(at(`?token=${encodeURIComponent(token)}`), { method: 'POST', headers: { 'content-type': FORM, ...headers }, body });
const doc = (n: string) => `<epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print"><text>${n}&#10;</text></epos-print>`;

describe('identity', () => {
  test('a token with a space before it, an empty header, an over-long token: 401 Unauthorized', async () => {
    const get = 'ConnectionType=GetRequest&ID=x';
    for (const r of [
      await send(at(`?token=%20${mine.token}`), { method: 'POST', headers: { 'content-type': FORM }, body: get }),
      await send(at(''), { method: 'POST', headers: { 'content-type': FORM, 'x-printer-token': '' }, body: get }),
      await send(at(`?token=${mine.token}${'A'.repeat(200)}`), { method: 'POST', headers: { 'content-type': FORM }, body: get }),
    ]) {
      expect(r.status).toBe(401);
      expect(await r.text()).toBe('Unauthorized');
    }
  });

  test('the printer id in the form names another merchant\'s printer: the token decides, their job stays queued', async () => {
    await mine.tdb.deleteFrom('print_jobs').execute();
    await enqueuePrintJob(mine.tdb, { printerId: mine.printerId, kind: 'test', sourceKey: 'x', document: doc('mine') });
    const r = await form(theirs.token, `ConnectionType=GetRequest&ID=${mine.printerId}`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
    expect((await mine.tdb.selectFrom('print_jobs').select('state').execute()).map((j) => j.state)).toEqual(['queued']);
  });
});

describe('bodies through the route', () => {
  test('streamed without a content-length, or declaring more than it sends: 413', async () => {
    const chunk = new TextEncoder().encode('a'.repeat(16_384));
    let n = 0;
    const stream = new ReadableStream({ pull: (c) => (n++ < 8 ? c.enqueue(chunk) : c.close()) });
    for (const r of [await form(mine.token, stream), await form(mine.token, 'ConnectionType=GetRequest&ID=x', { 'content-length': '99999999' })]) {
      expect(r.status).toBe(413);
      expect(await r.text()).toBe('Payload Too Large');
    }
  });

  test('malformed forms: 400 with the reason; a report without a readable result is an empty 200 and changes nothing', async () => {
    for (const [b, status, text] of [
      ['%%%', 400, 'Missing ConnectionType'],
      ['\u0000\u0001', 400, 'Missing ConnectionType'],
      [JSON.stringify({ ConnectionType: 'GetRequest', ID: 'x' }), 400, 'Missing ConnectionType'],
      ['ConnectionType=Print&ID=x', 400, 'Unsupported ConnectionType: Print'],
      ['ConnectionType=GetRequest', 400, 'Missing ID'],
      ['ConnectionType=SetResponse&ID=x', 200, ''],
      ['ConnectionType=SetResponse&ID=x&ResponseFile=%ZZ', 200, ''],
    ] as const) {
      const r = await form(mine.token, b);
      expect([r.status, await r.text()]).toEqual([status, text]);
    }
  });
});

describe('bodies through the server (serve-options.ts)', () => {
  test('a body over 64 KiB is refused while it arrives, token or not: 413 after a few MB at most, never the whole body read', async () => {
    // A refused body is the client's doing: nothing is logged as a failure of the service.
    const failures: string[] = [];
    const log: Logger = { ...deps.log, child: () => log, error: (msg) => void failures.push(msg) };
    const server = createPrinterPollApp({ ...deps, log }).listen({ ...pollServeOptions, port: 0, hostname: '127.0.0.1' });
    try {
      const url = `http://127.0.0.1:${server.server!.port}/print/printer-a/sdp?token=`;
      for (const token of ['made-up', mine.token]) {
        let pulled = 0;
        const mb = new Uint8Array(1 << 20).fill(97);
        const stream = new ReadableStream({ pull: (c) => (pulled >= 48 << 20 ? c.close() : ((pulled += mb.length), c.enqueue(mb))) });
        // Before: Bun took up to 128 MB and Elysia read all 48 MB (a made-up token was then told 401).
        const r = await fetch(url + token, { method: 'POST', headers: { 'content-type': FORM }, body: stream, duplex: 'half' } as RequestInit);
        expect(r.status).toBe(413);
        expect(pulled).toBeLessThan(16 << 20);
      }
      const declared = await fetch(url + mine.token, { method: 'POST', headers: { 'content-type': FORM }, body: 'a'.repeat(65_537) });
      expect(declared.status).toBe(413);
      // The largest body allowed still reaches the route.
      const edge = `ConnectionType=GetRequest&ID=x&Name=${'n'.repeat(65_536 - 'ConnectionType=GetRequest&ID=x&Name='.length)}`;
      const ok = await fetch(url + theirs.token, { method: 'POST', headers: { 'content-type': FORM }, body: edge });
      expect(ok.status).toBe(200);
      expect(failures).toEqual([]);
    } finally {
      await server.stop(true);
    }
  }, 30_000);
});

describe('a job for a retired printer', () => {
  const scope = () => ({ db: handle.db, tdb: mine.tdb, merchant: mine.m.merchant, now: new Date(), actor: 'test' });
  const queued = () => mine.tdb.selectFrom('print_jobs').select(['source_key', 'state']).where('printer_id', '=', mine.printerId).where('state', 'in', ['queued', 'leased']).execute();
  /** Seen again by the register, configured and paired anew: its new token. */
  async function backInService(): Promise<string> {
    const pos = mine.m.devices.find((d) => d.type === 'pos')!;
    await reportDiscoveredPrinters(mine.tdb, { deviceId: pos.id, locationId: pos.location_id }, [{ mac: '00:11:62:AD:00:01' }], new Date());
    await configurePrinter(scope(), await findPrinter(mine.tdb, mine.printerId), { name: 'Counter again' });
    return (await startPairing(scope(), await findPrinter(mine.tdb, mine.printerId), 'http://localhost/print/printer-a/sdp')).printer_token;
  }

  test('a receipt queued after the retire committed (the dispatcher read the printers before it) is not queued; back in service the printer never prints it', async () => {
    await mine.tdb.deleteFrom('print_jobs').execute();
    await retirePrinter(scope(), await findPrinter(mine.tdb, mine.printerId));
    // Before: the job was queued on the retired printer and printed once it was paired again.
    expect(await enqueuePrintJob(mine.tdb, { printerId: mine.printerId, kind: 'receipt', sourceKey: 'sale:stale', document: doc('stale sale') })).toBeNull();
    expect(await queued()).toEqual([]);
    mine.token = await backInService();
    const r = await form(mine.token, 'ConnectionType=GetRequest&ID=local_printer');
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
  });

  test('a receipt queued while a retire holds the printer waits for it, then queues nothing', async () => {
    await mine.tdb.deleteFrom('print_jobs').execute();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // What retire does in its transaction, held open until the job is on its way.
    const retire = mine.tdb.transaction().execute(async (tx) => {
      await tx.selectFrom('printers').select('id').where('id', '=', mine.printerId).forUpdate().execute();
      await tx.updateTable('printers').set({ state: 'retired' }).where('id', '=', mine.printerId).execute();
      await tx.updateTable('print_jobs').set({ state: 'cancelled' }).where('printer_id', '=', mine.printerId).where('state', 'in', ['queued', 'leased']).execute();
      locked();
      await held;
    });
    await isLocked;
    const job = enqueuePrintJob(mine.tdb, { printerId: mine.printerId, kind: 'receipt', sourceKey: 'sale:racing', document: doc('racing sale') });
    await Bun.sleep(200);
    release();
    await retire;
    expect(await job).toBeNull();
    expect(await queued()).toEqual([]);
    mine.token = await backInService();
    expect(await (await form(mine.token, 'ConnectionType=GetRequest&ID=local_printer')).text()).toBe('');
  });

  test('a printer in service still gets its job', async () => {
    await mine.tdb.deleteFrom('print_jobs').execute();
    expect(await enqueuePrintJob(mine.tdb, { printerId: mine.printerId, kind: 'receipt', sourceKey: 'sale:live', document: doc('live sale') })).toEqual(expect.any(String));
    expect(await (await form(mine.token, 'ConnectionType=GetRequest&ID=local_printer')).text()).toContain(doc('live sale'));
  });
});

describe('a poll with the old token, stamped after a new token was minted', () => {
  test('does not make the printer paired: only a poll with its current token does', async () => {
    const p = await seedPairedPrinter(handle.db, 'sdp-adv-stamp', '00:11:62:AD:00:03');
    // Stamps are written when the test says (flush), not every second.
    const state = new PollState(handle.db);
    await state.listen(DATABASE_URL, 3_600_000);
    try {
      const app = createPrinterPollApp(deps, state);
      const get = (token: string) => app.handle(new Request(at(`?token=${token}`), { method: 'POST', headers: { 'content-type': FORM }, body: 'ConnectionType=GetRequest&ID=x' }));
      const stateOf = async () => (await p.tdb.selectFrom('printers').select('state').where('id', '=', p.printerId).executeTakeFirstOrThrow()).state;
      const until = async (check: () => boolean) => {
        for (let i = 0; i < 300 && !check(); i++) await Bun.sleep(10);
      };
      // A first poll reads the (empty) queue and pairs the printer; once the queue is known empty, the
      // next polls are answered from memory and their stamps wait for the flush.
      // (The seed's own notices may come in after a poll's mark: it polls until the empty queue is remembered.)
      for (let i = 0; i < 100 && !state.isIdle(p.printerId); i++) {
        expect((await get(p.token)).status).toBe(200);
        await Bun.sleep(20);
      }
      expect(state.isIdle(p.printerId)).toBe(true);
      expect((await get(p.token)).status).toBe(200);
      expect(await stateOf()).toBe('paired');
      // The operator rotates the token while that stamp is pending: configured, waiting for the new token.
      const { printer_token } = await rotatePrinterToken({ db: handle.db, tdb: p.tdb, merchant: p.m.merchant, now: new Date(), actor: 'test' }, await findPrinter(p.tdb, p.printerId));
      expect(await stateOf()).toBe('configured');
      // The rotation's notice reaches this process's cache asynchronously (milliseconds; longer on a loaded machine).
      await until(() => !state.knows(p.token));
      expect(state.knows(p.token)).toBe(false);
      await state.flush();
      // Before: the old token's stamp marked it paired, though the printer still holds the dead token.
      expect(await stateOf()).toBe('configured');
      expect((await get(p.token)).status).toBe(401);
      expect((await get(printer_token)).status).toBe(200);
      await state.flush();
      expect(await stateOf()).toBe('paired');
    } finally {
      await state.stop();
      await p.drop();
    }
  });
});

describe('a poll that resolved its token just before a new one was minted', () => {
  test('reads the queue but leaves the printer configured; the new token\'s poll pairs it', async () => {
    const p = await seedPairedPrinter(handle.db, 'sdp-adv-race', '00:11:62:AD:00:04');
    try {
      const stateOf = async () => (await p.tdb.selectFrom('printers').select('state').where('id', '=', p.printerId).executeTakeFirstOrThrow()).state;
      const { printer_token } = await rotatePrinterToken({ db: handle.db, tdb: p.tdb, merchant: p.m.merchant, now: new Date(), actor: 'test' }, await findPrinter(p.tdb, p.printerId));
      // What the route does with the owner it resolved from the old token a moment before the rotation.
      await pollQueue(handle.db, p.m.merchant.tenant_database, p.printerId, new Date(), 60_000, hashPrinterToken(p.token));
      expect(await stateOf()).toBe('configured');
      await pollQueue(handle.db, p.m.merchant.tenant_database, p.printerId, new Date(), 60_000, hashPrinterToken(printer_token));
      expect(await stateOf()).toBe('paired');
    } finally {
      await p.drop();
    }
  });
});

describe('a new pairing while the printer polls with its old token', () => {
  test('the session is not paired by an old-token poll stamped after it began; the new token\'s poll pairs it', async () => {
    const p = await seedPairedPrinter(handle.db, 'sdp-adv-pair', '00:11:62:AD:00:05');
    const state = new PollState(handle.db);
    await state.listen(DATABASE_URL, 3_600_000);
    try {
      const app = createPrinterPollApp(deps, state);
      const get = (token: string) => app.handle(new Request(at(`?token=${token}`), { method: 'POST', headers: { 'content-type': FORM }, body: 'ConnectionType=GetRequest&ID=x' }));
      const scope = (now: Date) => ({ db: handle.db, tdb: p.tdb, merchant: p.m.merchant, now, actor: 'test' });
      // Polled until its empty queue is remembered (the seed's own notices may come in meanwhile).
      for (let i = 0; i < 100 && !state.isIdle(p.printerId); i++) {
        expect((await get(p.token)).status).toBe(200);
        await Bun.sleep(20);
      }
      expect(state.isIdle(p.printerId)).toBe(true);
      // The operator's pairing request began (its clock) just before this poll with the old token, and
      // its token committed just after: the poll's stamp is later than the session's start.
      const began = new Date(Date.now() - 500);
      expect((await get(p.token)).status).toBe(200);
      const { printer_token } = await startPairing(scope(began), await findPrinter(p.tdb, p.printerId), 'http://localhost/print/printer-a/sdp');
      await state.flush();
      // Before: `paired` (a poll after the session began), while the printer still held the dead token.
      expect((await getPairing(scope(new Date()), await findPrinter(p.tdb, p.printerId))).pairing_session.state).toBe('awaiting_write');
      expect((await get(printer_token)).status).toBe(200);
      await state.flush();
      expect((await getPairing(scope(new Date()), await findPrinter(p.tdb, p.printerId))).pairing_session.state).toBe('paired');
    } finally {
      await state.stop();
      await p.drop();
    }
  });
});

describe('a merchant deleted while its printer polls', () => {
  test('its token stops working at once in a poll service that had it cached (the cascade notifies), not 30 s later', async () => {
    const p = await seedPairedPrinter(handle.db, 'sdp-adv-drop', '00:11:62:AD:00:06');
    const state = new PollState(handle.db);
    await state.listen(DATABASE_URL, 50);
    try {
      const app = createPrinterPollApp(deps, state);
      const get = () => app.handle(new Request(at(`?token=${p.token}`), { method: 'POST', headers: { 'content-type': FORM }, body: 'ConnectionType=GetRequest&ID=x' }));
      for (let i = 0; i < 100 && !state.knows(p.token); i++) {
        expect((await get()).status).toBe(200);
        await Bun.sleep(20);
      }
      expect(state.knows(p.token)).toBe(true);
      await p.drop();
      // Before: answered 200 from memory until the cached owner's 30 s ran out.
      let status = 200;
      for (let i = 0; i < 100 && status === 200; i++) {
        await Bun.sleep(20);
        status = (await get()).status;
      }
      expect(status).toBe(401);
    } finally {
      await state.stop();
    }
  });
});
