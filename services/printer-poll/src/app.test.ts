import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import Redis from 'ioredis';
import { createDatabase, type DatabaseHandle } from '@pos/db';
import { createLogger, createRedis } from '@pos/kernel';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { createPrinterPollApp, type PrinterPollApp } from './app.ts';
import type { PrinterPollDeps } from './context.ts';
import { parseSdpBody, SDP_CONTENT_TYPE, summariseResponseFile } from './routes/printer-a-sdp.ts';
import { seedPairedPrinter } from './test-printer.ts';

const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
let URL_SDP = 'http://localhost/print/printer-a/sdp';
let printer: Awaited<ReturnType<typeof seedPairedPrinter>>;
const FORM = 'application/x-www-form-urlencoded';

let handle: DatabaseHandle;
let redis: Redis;
let deps: PrinterPollDeps;
let app: PrinterPollApp;

beforeAll(async () => {
  handle = createDatabase(DATABASE_URL, { max: 2, applicationName: 'printer-poll-test' });
  redis = createRedis(REDIS_URL, 'printer-poll-test');
  deps = { db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0) };
  app = createPrinterPollApp(deps);
  printer = await seedPairedPrinter(handle.db, 'poll-app', '00:11:62:AA:CC:01');
  URL_SDP = `http://localhost/print/printer-a/sdp?token=${printer.token}`;
  // The health check fails while the connection is still being made.
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});

afterAll(async () => {
  await printer.drop();
  redis.disconnect();
  await handle.close();
});

const post = (body: string, contentType = FORM) => app.handle(new Request(URL_SDP, { method: 'POST', headers: { 'content-type': contentType }, body }));

const RESPONSE_FILE =
  '<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><printjobid>JOB-1</printjobid></Parameter>' +
  '<PrintResponse><response success="true" code="" status="251658262" battery="0"/></PrintResponse></ePOSPrint></PrintResponseInfo>';

describe('POST /print/printer-a/sdp', () => {
  test('GetRequest: 200, text/xml; charset=utf-8, empty body', async () => {
    const res = await post('ConnectionType=GetRequest&ID=printer-1&Name=TM-m30');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(SDP_CONTENT_TYPE);
    expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
    expect(await res.text()).toBe('');
  });

  test('SetResponse: empty 200', async () => {
    const res = await post(new URLSearchParams({ ConnectionType: 'SetResponse', ID: 'printer-1', ResponseFile: RESPONSE_FILE }).toString());
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });

  test('missing ConnectionType: 400 text', async () => {
    const res = await post('ID=printer-1');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    expect(await res.text()).toBe('Missing ConnectionType');
  });

  test('another ConnectionType: 400 text', async () => {
    const res = await post('ConnectionType=Reboot&ID=printer-1');
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('Unsupported ConnectionType: Reboot');
  });

  test('empty body: 400', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
  });

  test('over a real socket the content type is exactly text/xml; charset=utf-8', async () => {
    const server = createPrinterPollApp(deps).listen({ port: 0, hostname: '127.0.0.1' });
    try {
      const res = await fetch(`http://127.0.0.1:${server.server!.port}/print/printer-a/sdp?token=${printer.token}`, {
        method: 'POST',
        headers: { 'content-type': FORM },
        body: 'ConnectionType=GetRequest&ID=printer-1',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/xml; charset=utf-8');
      expect(await res.text()).toBe('');
    } finally {
      await server.stop();
    }
  });
});

describe('GET /health', () => {
  test('200 with database and redis checks', async () => {
    const res = await app.handle(new Request('http://localhost/health'));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(body.status).toBe('ok');
    expect(body.checks.database?.status).toBe('ok');
    expect(body.checks.redis?.status).toBe('ok');
  });

  test('503 naming redis when Redis does not answer', async () => {
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    down.on('error', () => {});
    try {
      const sick = createPrinterPollApp({ ...deps, redis: down, health: new HealthMonitor(() => checkDependencies(handle.db, down), 0) });
      const res = await sick.handle(new Request('http://localhost/health'));
      expect(res.status).toBe(503);
      expect(((await res.json()) as { message: string }).message).toBe('Unhealthy: redis');
    } finally {
      down.disconnect();
    }
  });
});

describe('parsing', () => {
  test('parseSdpBody reads the form', () => {
    expect(parseSdpBody('ConnectionType=GetRequest&ID=a%20b')).toEqual({ ok: true, request: { kind: 'GetRequest', printerId: 'a b', name: undefined } });
    expect(parseSdpBody('ConnectionType=GetRequest')).toEqual({ ok: false, error: 'Missing ID' });
  });

  test('summariseResponseFile picks job id, success and code', () => {
    expect(summariseResponseFile(RESPONSE_FILE)).toEqual({ printjobid: 'JOB-1', success: true });
    expect(summariseResponseFile('<response success="false" code="EPTR_COVER_OPEN"/>')).toEqual({ success: false, code: 'EPTR_COVER_OPEN' });
  });

  test('over 64 KiB: 413', async () => {
    const res = await post(`ConnectionType=GetRequest&ID=${'x'.repeat(70_000)}`);
    expect(res.status).toBe(413);
  });

  test('the 64 KiB limit counts bytes: 40,000 three-byte characters (120 KB) are 413, exactly 65,536 bytes are accepted', async () => {
    const wide = `ConnectionType=GetRequest&ID=local_printer&Name=${'€'.repeat(40_000)}`;
    expect(wide.length).toBeLessThan(65_536);
    expect(Buffer.byteLength(wide)).toBeGreaterThan(115_000);
    expect((await post(wide)).status).toBe(413);

    const head = 'ConnectionType=GetRequest&ID=local_printer&Name=';
    const exact = `${head}${'é'.repeat((65_536 - head.length) / 2)}`;
    expect(Buffer.byteLength(exact)).toBe(65_536);
    expect((await post(exact)).status).toBe(200);
    expect((await post(`${exact}x`)).status).toBe(413);
  });
});

describe('a hostile result report under the size limit', () => {
  let other: Awaited<ReturnType<typeof seedPairedPrinter>>;
  beforeAll(async () => {
    other = await seedPairedPrinter(handle.db, 'poll-app-b', '00:11:62:AA:CC:02');
  });
  afterAll(async () => {
    await other.drop();
  });

  test('a 64 KB SetResponse of repeated `<response` openings is answered in milliseconds and does not stall another printer\'s poll', async () => {
    const postAs = (token: string, body: string) => app.handle(new Request(`http://localhost/print/printer-a/sdp?token=${token}`, { method: 'POST', headers: { 'content-type': FORM }, body }));
    // Warm both printers' paths (token lookup, first poll).
    expect((await postAs(printer.token, 'ConnectionType=GetRequest&ID=local_printer')).status).toBe(200);
    expect((await postAs(other.token, 'ConnectionType=GetRequest&ID=local_printer')).status).toBe(200);

    const hostile = `ConnectionType=SetResponse&ID=local_printer&ResponseFile=${'<response\t'.repeat(6400)}`;
    expect(Buffer.byteLength(hostile)).toBeLessThanOrEqual(65_536);
    const t0 = performance.now();
    const [h, v] = await Promise.all([
      postAs(other.token, hostile).then(async (r) => ({ status: r.status, body: await r.text(), ms: performance.now() - t0 })),
      postAs(printer.token, 'ConnectionType=GetRequest&ID=local_printer').then((r) => ({ status: r.status, ms: performance.now() - t0 })),
    ]);
    expect(h.status).toBe(200);
    expect(h.body).toBe('');
    expect(v.status).toBe(200);
    // Both take a few milliseconds; the former regexes held the thread ~700 ms on this body (the bound
    // leaves room for a loaded CI machine and still catches the regression).
    expect(h.ms).toBeLessThan(400);
    expect(v.ms).toBeLessThan(400);
  });
});
