import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createDatabase, type DatabaseHandle, type TenantDb } from '@pos/db';
import { createLogger, createRedis } from '@pos/kernel';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { enqueuePrintJob } from '@pos/core/printers/print-jobs';
import { rotatePrinterToken, retirePrinter } from '@pos/core/printers/printer-admin';
import { findPrinter } from '@pos/core/printers/printer-records';
import type Redis from 'ioredis';
import { createPrinterPollApp } from './app.ts';
import type { PrinterPollDeps } from './context.ts';
import { seedPairedPrinter } from './test-printer.ts';
import { PollState } from './poll-state.ts';
import { PollThrottle } from './poll-throttle.ts';
import { PRINTER_POLL_THROTTLE } from './routes/printer-a-sdp.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const FORM = 'application/x-www-form-urlencoded';

let handle: DatabaseHandle;
let redis: Redis;
let deps: PrinterPollDeps;
let seeded: Awaited<ReturnType<typeof seedPairedPrinter>>;
let other: Awaited<ReturnType<typeof seedPairedPrinter>>;
let tdb: TenantDb;
let clock = Date.now();

beforeAll(async () => {
  handle = createDatabase(DATABASE_URL, { max: 8, applicationName: 'printer-poll-jobs-test' });
  redis = createRedis(REDIS_URL, 'printer-poll-jobs-test');
  deps = { db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0), leaseMs: 30_000, now: () => new Date(clock) };
  seeded = await seedPairedPrinter(handle.db, 'sdp-jobs');
  other = await seedPairedPrinter(handle.db, 'sdp-other', '00:11:62:AA:BB:02');
  tdb = seeded.tdb;
});
afterAll(async () => {
  await seeded.drop();
  await other.drop();
  redis.disconnect();
  await handle.close();
});

const app = () => createPrinterPollApp(deps);
function poll(token: string | undefined, form: Record<string, string>, via: 'query' | 'header' = 'query') {
  const url = new URL('http://localhost/print/printer-a/sdp');
  const headers: Record<string, string> = { 'content-type': FORM };
  if (token && via === 'query') url.searchParams.set('token', token);
  if (token && via === 'header') headers['x-printer-token'] = token;
  return app().handle(new Request(url.toString(), { method: 'POST', headers, body: new URLSearchParams(form).toString() }));
}
const get = (token = seeded.token, via: 'query' | 'header' = 'query') => poll(token, { ConnectionType: 'GetRequest', ID: 'local_printer' }, via);
const report = (jobId: string, success: boolean, code = '', token = seeded.token) =>
  poll(token, {
    ConnectionType: 'SetResponse',
    ID: 'local_printer',
    ResponseFile: `<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><printjobid>${jobId}</printjobid></Parameter><PrintResponse><response success="${success}" code="${code}" status="0" battery="0"/></PrintResponse></ePOSPrint></PrintResponseInfo>`,
  });
const jobIdOf = (xml: string) => /<printjobid>([^<]+)<\/printjobid>/.exec(xml)?.[1];
const doc = (n: string) => `<epos-print xmlns="http://www.epson-pos.com/schemas/2011/03/epos-print"><text>${n}&#10;</text></epos-print>`;
const jobs = () => tdb.selectFrom('print_jobs').select(['kind', 'state', 'attempts', 'last_code']).where('printer_id', '=', seeded.printerId).orderBy('seq').execute();
const clear = () => tdb.deleteFrom('print_jobs').execute();

describe('printer.auth', () => {
  test('no token, an unknown token, and a token of nothing: 401 with the same body', async () => {
    for (const r of [await get(''), await get('prt_unknown'), await poll(undefined, { ConnectionType: 'GetRequest', ID: 'x' })]) {
      expect(r.status).toBe(401);
      expect(await r.text()).toBe('Unauthorized');
    }
  });

  test('the token works in the query and in X-Printer-Token; the first poll pairs the printer', async () => {
    const a = await get(seeded.token, 'query');
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await a.text()).toBe('');
    const b = await get(seeded.token, 'header');
    expect(b.status).toBe(200);
    const p = await tdb.selectFrom('printers').select(['state', 'last_poll_at']).where('id', '=', seeded.printerId).executeTakeFirstOrThrow();
    expect(p.state).toBe('paired');
    expect(p.last_poll_at?.getTime()).toBe(clock);
  });

  test('a token selects its own tenant: another merchant\'s printer never sees these jobs', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'test', sourceKey: 'iso', document: doc('mine') });
    const r = await get(other.token);
    expect(await r.text()).toBe('');
    expect((await jobs())[0]!.state).toBe('queued');
  });
});

describe('job protocol', () => {
  test('GetRequest answers the head job as PrintRequestInfo 2.00; success marks it printed and it is never offered again', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'a', document: doc('first') });
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'b', document: doc('second') });
    const r = await get();
    const xml = await r.text();
    expect(xml).toStartWith('<?xml version="1.0" encoding="utf-8"?><PrintRequestInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><timeout>10000</timeout><printjobid>J');
    expect(xml).toContain(`<PrintData>${doc('first')}</PrintData>`);
    const id = jobIdOf(xml)!;
    // While leased, the queue is held: the second job waits for the first (order).
    expect(await (await get()).text()).toBe('');
    expect((await report(id, true)).status).toBe(200);
    expect((await jobs()).map((j) => j.state)).toEqual(['printed', 'queued']);
    // A repeated success report changes nothing; the next poll gets the second job.
    await report(id, true);
    const next = await (await get()).text();
    expect(next).toContain(doc('second'));
    expect(jobIdOf(next)).not.toBe(id);
    await report(jobIdOf(next)!, true);
    expect(await (await get()).text()).toBe('');
    expect((await jobs()).map((j) => [j.state, j.attempts])).toEqual([
      ['printed', 1],
      ['printed', 1],
    ]);
  });

  test('recoverable failures (cover open, paper out, time-out) are offered again on the next poll; others fail and the queue moves on', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'r', document: doc('retry') });
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'f', document: doc('fatal') });
    for (const code of ['EPTR_COVER_OPEN', 'EPTR_REC_EMPTY', 'EX_TIMEOUT']) {
      const id = jobIdOf(await (await get()).text())!;
      await report(id, false, code);
      expect((await jobs())[0]).toMatchObject({ state: 'queued', last_code: code });
    }
    const id = jobIdOf(await (await get()).text())!;
    await report(id, true);
    const fatal = jobIdOf(await (await get()).text())!;
    await report(fatal, false, 'EPTR_CUTTER');
    expect((await jobs()).map((j) => [j.state, j.attempts, j.last_code])).toEqual([
      ['printed', 4, null],
      ['failed', 1, 'EPTR_CUTTER'],
    ]);
    expect(await (await get()).text()).toBe('');
  });

  test('a job not confirmed within its lease is offered again; a late success still counts once', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'l', document: doc('lease') });
    const id = jobIdOf(await (await get()).text())!;
    clock += 29_000;
    expect(await (await get()).text()).toBe('');
    clock += 2_000;
    const again = jobIdOf(await (await get()).text());
    // The same job, handed out a second time: the id names the attempt.
    expect(id).toMatch(/^J[0-9]+\.1$/);
    expect(again).toBe(id.replace(/\.1$/, '.2'));
    await report(id, true);
    await report(id, true);
    clock += 60_000;
    expect(await (await get()).text()).toBe('');
    expect(await jobs()).toEqual([{ kind: 'receipt', state: 'printed', attempts: 2, last_code: null }]);
  });

  test('a late failure report of a hand-out whose lease ran out does not put back the job handed out again (no second print)', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'late', document: doc('late') });
    const first = jobIdOf(await (await get()).text())!;
    clock += 31_000;
    const second = jobIdOf(await (await get()).text())!;
    expect(second).not.toBe(first);
    // The first hand-out's cover-open report arrives now: the second hand-out is still printing.
    expect((await report(first, false, 'EPTR_COVER_OPEN')).status).toBe(200);
    expect((await jobs())[0]).toMatchObject({ state: 'leased', attempts: 2, last_code: null });
    expect(await (await get()).text()).toBe('');
    // A stale fatal code changes nothing either; the current hand-out's own report decides.
    await report(first, false, 'EPTR_CUTTER');
    expect((await jobs())[0]).toMatchObject({ state: 'leased', attempts: 2 });
    await report(second, false, 'EPTR_REC_EMPTY');
    expect((await jobs())[0]).toMatchObject({ state: 'queued', attempts: 2, last_code: 'EPTR_REC_EMPTY' });
    // A late success of an earlier hand-out did print: the job is not offered again.
    await report(first, true);
    expect(await jobs()).toEqual([{ kind: 'receipt', state: 'printed', attempts: 2, last_code: null }]);
    expect(await (await get()).text()).toBe('');
    // An id naming an attempt never made, or a bare J<seq> of another job, is ignored.
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'late2', document: doc('late2') });
    const third = jobIdOf(await (await get()).text())!;
    await report(third.replace(/\.1$/, '.7'), true);
    expect((await jobs())[1]).toMatchObject({ state: 'leased', attempts: 1 });
    await report(third.replace(/\.1$/, ''), true);
    expect((await jobs())[1]).toMatchObject({ state: 'printed', attempts: 1 });
  });

  test('concurrent polls: a job goes to exactly one of them, and after success to none', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'c', document: doc('once') });
    const answers = await Promise.all(Array.from({ length: 12 }, () => get().then((r) => r.text())));
    const given = answers.filter((a) => a.length > 0);
    expect(given.length).toBe(1);
    const id = jobIdOf(given[0]!)!;
    // Success reports and polls racing each other: still printed once, never offered again.
    const race = await Promise.all([...Array.from({ length: 4 }, () => report(id, true)), ...Array.from({ length: 8 }, () => get().then((r) => r.text()))]);
    expect(race.filter((x) => typeof x === 'string' && x.length > 0)).toEqual([]);
    clock += 120_000;
    const later = await Promise.all(Array.from({ length: 8 }, () => get().then((r) => r.text())));
    expect(later.filter((a) => a.length > 0)).toEqual([]);
    expect(await jobs()).toEqual([{ kind: 'receipt', state: 'printed', attempts: 1, last_code: null }]);
  });

  test('a report for a job never offered (queued behind the leased head) changes nothing, success or failure', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'h', document: doc('head') });
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'b', document: doc('behind') });
    const head = jobIdOf(await (await get()).text())!;
    const behind = `J${(await tdb.selectFrom('print_jobs').select('seq').where('printer_id', '=', seeded.printerId).where('source_key', '=', 'b').executeTakeFirstOrThrow()).seq}`;
    expect((await report(behind, true)).status).toBe(200);
    expect((await report(behind, false, 'EPTR_CUTTER')).status).toBe(200);
    expect((await jobs()).map((j) => [j.state, j.attempts, j.last_code])).toEqual([
      ['leased', 1, null],
      ['queued', 0, null],
    ]);
    // The head's own report moves the queue on; the job behind is then offered as usual.
    await report(head, true);
    expect(await (await get()).text()).toContain(doc('behind'));
  });

  test('a report for another printer\'s job changes nothing', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'x', document: doc('x') });
    const id = jobIdOf(await (await get()).text())!;
    await report(id, true, '', other.token);
    expect((await jobs())[0]!.state).toBe('leased');
  });
});

describe('token lifecycle', () => {
  test('rotation makes the old token fail at once; retirement makes the new one fail and cancels waiting jobs', async () => {
    await clear();
    await enqueuePrintJob(tdb, { printerId: seeded.printerId, kind: 'receipt', sourceKey: 'rot', document: doc('rot') });
    const scope = { db: handle.db, tdb, merchant: seeded.m.merchant, now: new Date(clock), actor: 'test' };
    const { printer_token } = await rotatePrinterToken(scope, await findPrinter(tdb, seeded.printerId));
    expect((await get(seeded.token)).status).toBe(401);
    const stored = await handle.db.selectFrom('printer_tokens').select('token_hash').where('printer_id', '=', seeded.printerId).execute();
    expect(stored.length).toBe(1);
    expect(stored[0]!.token_hash).not.toContain(printer_token);
    expect(await (await get(printer_token)).text()).toContain(doc('rot'));
    await retirePrinter(scope, await findPrinter(tdb, seeded.printerId));
    expect((await get(printer_token)).status).toBe(401);
    expect((await jobs()).map((j) => j.state)).toEqual(['cancelled']);
  });
});

describe('throttle printer-poll', () => {
  // One app for the whole run, so every poll counts against the same throttle (app() makes a fresh one
  // per request); the throttle reads the test clock, so the minute window never rolls over mid-loop.
  class ClockThrottle extends PollThrottle {
    override hit(subject: string) {
      return super.hit(subject, clock);
    }
    override peek(subject: string) {
      return super.peek(subject, clock);
    }
  }
  const pollWith = (server: ReturnType<typeof createPrinterPollApp>, token: string) =>
    server.handle(
      new Request(`http://localhost/print/printer-a/sdp?token=${encodeURIComponent(token)}`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body: new URLSearchParams({ ConnectionType: 'GetRequest', ID: 'local_printer' }).toString(),
      }),
    );

  test('120 requests a minute per token, then 429 with Retry-After; other printers are not affected; the next minute is open again', async () => {
    const fresh = await seedPairedPrinter(handle.db, 'sdp-throttle', '00:11:62:AA:BB:03');
    const saved = clock;
    clock = Math.floor(Date.now() / 60_000) * 60_000 + 60_000 + 15_000; // 15 s into a minute window
    try {
      const server = createPrinterPollApp(deps, new PollState(handle.db), new ClockThrottle(redis, PRINTER_POLL_THROTTLE));
      for (let i = 0; i < 120; i++) expect((await pollWith(server, fresh.token)).status).toBe(200);
      const refused = await pollWith(server, fresh.token);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('45');
      expect(await refused.text()).toBe('Too Many Attempts.');
      expect((await pollWith(server, fresh.token)).status).toBe(429);
      expect((await pollWith(server, other.token)).status).toBe(200);
      clock += 45_000; // the next window
      expect((await pollWith(server, fresh.token)).status).toBe(200);
    } finally {
      clock = saved;
      await fresh.drop();
    }
  }, 30_000);
});
