import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { createDatabase, type DatabaseHandle } from '@pos/db';
import { createLogger, createRedis } from '@pos/kernel';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { enqueuePrintJob } from '@pos/core/printers/print-jobs';
import { listPrinters } from '@pos/core/printers/printer-records';
import { renderEpos } from '@pos/domain/printing/render';
import { startPrinterSimulator, type PrinterSimulator } from '@pos/providers/printer-a/printer-simulator';
import { createPrinterPollApp } from './app.ts';
import { seedPairedPrinter } from './test-printer.ts';

/** The printer simulator against the real poll service over HTTP (issue 15 points 7 and 8). */
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

let handle: DatabaseHandle;
let redis: Redis;
let server: ReturnType<ReturnType<typeof createPrinterPollApp>['listen']>;
let seeded: Awaited<ReturnType<typeof seedPairedPrinter>>;
let sim: PrinterSimulator;
let output: string;

beforeAll(async () => {
  handle = createDatabase(DATABASE_URL, { max: 4, applicationName: 'printer-sim-test' });
  redis = createRedis(REDIS_URL, 'printer-sim-test');
  const deps = { db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0), leaseMs: 2_000 };
  server = createPrinterPollApp(deps).listen({ port: 0, hostname: '127.0.0.1' });
  seeded = await seedPairedPrinter(handle.db, 'printer-sim', '00:11:62:DD:00:01');
  output = join(mkdtempSync(join(tmpdir(), 'printer-sim-')), 'printed.jsonl');
  sim = startPrinterSimulator({ intervalMs: 40, outputFile: output, controlPort: 0, tokenIn: 'header' });
  sim.pair(`http://127.0.0.1:${server.server!.port}/print/printer-a/sdp`, seeded.token);
});
afterAll(async () => {
  await sim.stop();
  await server.stop();
  await seeded.drop();
  redis.disconnect();
  await handle.close();
});

async function until(check: () => boolean | Promise<boolean>, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(20);
  }
  throw new Error('timed out');
}
const receipt = (n: string) =>
  renderEpos({ kind: 'sale', header: { title: 'Demo' }, number: n, date: 'now', lines: [{ name: 'Espresso', qty: 1, amount: 250 }], vat: [{ rate: 21, net: 207, vat: 43, gross: 250 }], total: 250, tenders: [{ label: 'Cash', amount: 250 }], fiscal: { short_signature: `SIG-${n}`, verification_url: `https://fdm.example/v/${n}` } });
const jobStates = () => seeded.tdb.selectFrom('print_jobs').select(['state', 'last_code']).orderBy('seq').execute();

describe('printer simulator', () => {
  test('polls with its token, prints a receipt to its file with the short signature and the QR, reports success', async () => {
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'sale_receipt', sourceKey: 'sale:1', document: receipt('1') });
    await until(() => sim.printed.length === 1);
    const lines = readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.length).toBe(1);
    expect(lines[0].lines).toContain('Signature: SIG-1');
    expect(lines[0].qr).toEqual(['https://fdm.example/v/1']);
    await until(async () => (await jobStates())[0]?.state === 'printed');
  });

  test('paper out: the job waits (EPTR_REC_EMPTY, still queued); paper back: printed exactly once', async () => {
    const ctl = (p: string) => fetch(`${sim.controlUrl}/_sim/${p}`, { method: 'POST' }).then((r) => r.json());
    await ctl('paper-out');
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'sale_receipt', sourceKey: 'sale:2', document: receipt('2') });
    await until(() => sim.state.reports.filter((r) => r.code === 'EPTR_REC_EMPTY').length >= 3);
    expect(sim.printed.length).toBe(1);
    const waiting = (await jobStates())[1]!;
    // Between two polls it is queued; during one, leased to it. Never printed, never failed.
    expect(['queued', 'leased']).toContain(waiting.state);
    expect(waiting.last_code).toBe('EPTR_REC_EMPTY');
    await ctl('paper-in');
    await until(() => sim.printed.length === 2);
    await until(async () => (await jobStates())[1]!.state === 'printed');
    await Bun.sleep(300);
    expect(sim.printed.filter((p) => p.lines.includes('Signature: SIG-2')).length).toBe(1);
    expect((await jobStates()).map((j) => j.state)).toEqual(['printed', 'printed']);
  });

  test('cover open is retried the same way', async () => {
    await fetch(`${sim.controlUrl}/_sim/cover-open`, { method: 'POST' });
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'test', sourceKey: 'cover', document: receipt('3') });
    await until(() => sim.state.reports.some((r) => r.code === 'EPTR_COVER_OPEN'));
    await fetch(`${sim.controlUrl}/_sim/cover-close`, { method: 'POST' });
    await until(() => sim.printed.length === 3);
  });

  test('silent: offline after 2 x interval + 5 s; its jobs wait and print in order once it is back', async () => {
    await fetch(`${sim.controlUrl}/_sim/silent`, { method: 'POST' });
    await Bun.sleep(100);
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'sale_receipt', sourceKey: 'sale:4', document: receipt('4') });
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'sale_receipt', sourceKey: 'sale:5', document: receipt('5') });
    const later = new Date(Date.now() + 16_000);
    const [view] = await listPrinters(seeded.tdb, { locationIds: 'all' }, later);
    expect(view).toMatchObject({ online: false, pending_jobs: 2 });
    expect(sim.printed.length).toBe(3);
    await fetch(`${sim.controlUrl}/_sim/resume`, { method: 'POST' });
    await until(() => sim.printed.length === 5);
    expect(sim.printed.slice(3).map((p) => p.lines.find((l) => l.startsWith('Signature')))).toEqual(['Signature: SIG-4', 'Signature: SIG-5']);
    await until(async () => (await listPrinters(seeded.tdb, { locationIds: 'all' }, new Date()))[0]!.pending_jobs === 0);
    const [back] = await listPrinters(seeded.tdb, { locationIds: 'all' }, new Date());
    expect(back).toMatchObject({ online: true, pending_jobs: 0 });
  });
});
