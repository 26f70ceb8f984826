import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type Redis from 'ioredis';
import { createDatabase, dbQueryCount, type DatabaseHandle } from '@pos/db';
import { createLogger, createRedis } from '@pos/kernel';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { enqueuePrintJob } from '@pos/core/printers/print-jobs';
import { rotatePrinterToken } from '@pos/core/printers/printer-admin';
import { PRINTER_TOKENS_CHANNEL } from '@pos/core/printers/printer-tokens';
import { sql } from 'kysely';
import { findPrinter } from '@pos/core/printers/printer-records';
import { createPrinterPollApp } from './app.ts';
import { PollState } from './poll-state.ts';
import { PollThrottle } from './poll-throttle.ts';
import { PRINTER_POLL_THROTTLE } from './routes/printer-a-sdp.ts';
import { seedPairedPrinter } from './test-printer.ts';
import { parseAllowList } from '@pos/core/devices/ip-allow-list';
import { createClientAddress } from '@pos/core/network/client-address';
import { throttleAddress } from '@pos/core/network/throttle-subject';

/** The in-memory fast path of the poll service: what it caches, and that NOTIFY keeps it true. */
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';
const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

let handle: DatabaseHandle;
let redis: Redis;
let state: PollState;
let seeded: Awaited<ReturnType<typeof seedPairedPrinter>>;
let app: ReturnType<typeof createPrinterPollApp>;

beforeAll(async () => {
  handle = createDatabase(DATABASE_URL, { max: 4, applicationName: 'printer-poll-cache-test' });
  redis = createRedis(REDIS_URL, 'printer-poll-cache-test');
  state = new PollState(handle.db);
  await state.listen(DATABASE_URL, 50);
  app = createPrinterPollApp({ db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0) }, state);
  const notices = state.mark();
  seeded = await seedPairedPrinter(handle.db, 'poll-cache', '00:11:62:CC:00:01');
  // Pairing minted the printer's token (NOTIFY printer_tokens): until that notice is in, a poll's empty
  // queue is rightly not remembered (a notice after the poll's mark), so the first test waits for it.
  await until(() => state.mark() > notices);
});
afterAll(async () => {
  await state.stop();
  await seeded.drop();
  redis.disconnect();
  await handle.close();
});

const get = (token: string) =>
  app.handle(new Request(`http://localhost/print/printer-a/sdp?token=${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=p' }));
async function until(check: () => boolean | Promise<boolean>, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await Bun.sleep(10);
  }
  throw new Error('timed out');
}

describe('poll state', () => {
  test('an empty queue is remembered; a queued job (NOTIFY print_jobs) makes the next poll look again', async () => {
    expect(await (await get(seeded.token)).text()).toBe('');
    expect(state.isIdle(seeded.printerId)).toBe(true);
    await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'test', sourceKey: 'n1', document: '<epos-print/>' });
    await until(() => !state.isIdle(seeded.printerId));
    expect(await (await get(seeded.token)).text()).toContain('<printjobid>J');
  });

  test('idle polls are stamped in batches: last_poll_at follows within the flush interval', async () => {
    await seeded.tdb.deleteFrom('print_jobs').execute();
    await get(seeded.token);
    await get(seeded.token);
    const polledAt = Date.now();
    await until(async () => {
      const p = await seeded.tdb.selectFrom('printers').select('last_poll_at').where('id', '=', seeded.printerId).executeTakeFirstOrThrow();
      return !!p.last_poll_at && p.last_poll_at.getTime() >= polledAt - 50;
    });
  });

  test('a cached token stops working when a new one is minted (NOTIFY printer_tokens)', async () => {
    expect((await get(seeded.token)).status).toBe(200);
    const { printer_token } = await rotatePrinterToken({ db: handle.db, tdb: seeded.tdb, merchant: seeded.m.merchant, now: new Date(), actor: 'test' }, await findPrinter(seeded.tdb, seeded.printerId));
    await until(async () => (await get(seeded.token)).status === 401);
    seeded.token = printer_token;
    expect((await get(seeded.token)).status).toBe(200);
  });
});

describe('poll throttle', () => {
  test('counts in the process exactly; totals of other processes arrive through Redis at each sync', async () => {
    const rule = { name: `printer-poll-test-${crypto.randomUUID().slice(0, 8)}`, limit: 5, windowSeconds: 60 };
    const a = new PollThrottle(redis, rule);
    const b = new PollThrottle(redis, rule);
    const now = Date.now();
    expect([1, 2, 3].map(() => a.hit('printer', now).allowed)).toEqual([true, true, true]);
    await a.sync(now);
    // b has not synced yet: it only knows its own hits.
    expect(b.hit('printer', now).allowed).toBe(true);
    await b.sync(now);
    // 3 from a + 1 from b are in Redis: b's next two hits reach 6 > 5.
    expect(b.hit('printer', now).allowed).toBe(true);
    expect(b.hit('printer', now).allowed).toBe(false);
    await b.sync(now);
    // a learns the total at its next sync after a hit of its own (one stale hit at most per sync).
    expect(a.hit('printer', now).allowed).toBe(true);
    await a.sync(now);
    expect(a.hit('printer', now).allowed).toBe(false);
    expect(Number(await redis.get(`throttle:${rule.name}:60:printer:${Math.floor(now / 60_000) * 60_000}`))).toBe(7);
  });
});

describe('poll state marks', () => {
  test('a notification between the queue read and the mark keeps the printer from being taken as idle', async () => {
    const s = new PollState(handle.db);
    await s.listen(DATABASE_URL, 1000);
    try {
      const mark = s.mark();
      await enqueuePrintJob(seeded.tdb, { printerId: seeded.printerId, kind: 'test', sourceKey: `race-${crypto.randomUUID()}`, document: '<epos-print/>' });
      await until(() => s.mark() > mark);
      s.markIdle(seeded.printerId, mark);
      expect(s.isIdle(seeded.printerId)).toBe(false);
      s.markIdle(seeded.printerId, s.mark());
      expect(s.isIdle(seeded.printerId)).toBe(true);
      expect(s.isIdle(seeded.printerId, Date.now() + 61_000)).toBe(false);
    } finally {
      await s.stop();
    }
  });
});

describe('poll state token reads', () => {
  test('a token notice that comes in while its owner is being read: the answer serves that poll and is not remembered', async () => {
    // One connection, held by the test: the state's read waits for it, after its mark is taken.
    const one = createDatabase(DATABASE_URL, { max: 1, applicationName: 'printer-poll-cache-one' });
    const s = new PollState(one.db);
    await s.listen(DATABASE_URL, 1000);
    try {
      let pending: Promise<unknown> = Promise.resolve();
      await one.db.connection().execute(async () => {
        const mark = s.mark();
        pending = s.resolve(seeded.token);
        // What a rotation committing meanwhile sends (the trigger on printer_tokens).
        await sql`select pg_notify(${PRINTER_TOKENS_CHANNEL}, ${seeded.printerId})`.execute(handle.db);
        await until(() => s.mark() > mark);
      });
      // Before: remembered for 30 s, so a token rotated during the read kept polling from memory.
      expect(await pending).toEqual(expect.objectContaining({ printer_id: seeded.printerId }));
      expect(s.knows(seeded.token)).toBe(false);
      expect(await s.resolve(seeded.token)).toEqual(expect.objectContaining({ printer_id: seeded.printerId }));
      expect(s.knows(seeded.token)).toBe(true);
    } finally {
      await s.stop();
      await one.close();
    }
  });

  test('a reconnect (missed notices) while a queue is being read: the printer is not taken as idle', async () => {
    const s = new PollState(handle.db);
    await s.listen(DATABASE_URL, 1000);
    try {
      const mark = s.mark();
      s.reset();
      s.markIdle(seeded.printerId, mark);
      expect(s.isIdle(seeded.printerId)).toBe(false);
      s.markIdle(seeded.printerId, s.mark());
      expect(s.isIdle(seeded.printerId)).toBe(true);
    } finally {
      await s.stop();
    }
  });
});

describe('printer-poll throttle of made-up tokens', () => {
  test('a new guess per request gets no fresh allowance: 120 a minute per client address, then 429 without a lookup; a live token from there still polls', async () => {
    // Counters of its own (the rule's name is in the key): other tests' refused polls in the same minute would share the address's.
    const guarded = createPrinterPollApp({ db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0) }, state, new PollThrottle(redis, { ...PRINTER_POLL_THROTTLE, name: `printer-poll-guess-${crypto.randomUUID()}` }));
    const poll = (token: string) => guarded.handle(new Request(`http://localhost/print/printer-a/sdp?token=${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=p' }));
    const live = await seedPairedPrinter(handle.db, 'poll-guess', '00:11:62:CC:00:02');
    try {
      // The counting window is clock-aligned (a minute): start well inside one.
      // The mint's NOTIFY can arrive after a first poll and drop the owner it cached: poll until the token stays known.
      for (let i = 0; i < 20; i++) {
        expect((await poll(live.token)).status).toBe(200);
        await Bun.sleep(200);
        if (state.knows(live.token)) break;
      }
      expect(state.knows(live.token)).toBe(true);
      if (Date.now() % 60_000 > 50_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 50);
      const statuses: number[] = [];
      for (let i = 0; i < 130; i++) statuses.push((await poll(`prt_guess_${i}_${crypto.randomUUID()}`)).status);
      expect(statuses.slice(0, 120)).toEqual(Array(120).fill(401));
      expect(statuses.slice(120)).toEqual(Array(10).fill(429));
      await Bun.sleep(150); // the batched poll stamp is written
      const q0 = dbQueryCount();
      const blocked = await poll(`prt_guess_${crypto.randomUUID()}`);
      expect(blocked.status).toBe(429);
      expect(await blocked.text()).toBe('Too Many Attempts.');
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(dbQueryCount() - q0).toBe(0);
      // Not even a missing token is looked at; the printer whose token this process knows live polls on.
      expect((await guarded.handle(new Request('http://localhost/print/printer-a/sdp', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=p' }))).status).toBe(429);
      expect((await poll(live.token)).status).toBe(200);
    } finally {
      await live.drop();
    }
  }, 90_000);
});

describe('a live printer sharing its address with made-up tokens', () => {
  test('its owner aged out of the cache: it still polls, its address over the limit (before: 429 until the junk stopped)', async () => {
    const s = new PollState(handle.db, 100);
    await s.listen(DATABASE_URL, 50);
    const rule = { ...PRINTER_POLL_THROTTLE, name: `printer-poll-shared-${crypto.randomUUID()}`, limit: 5 };
    const guarded = createPrinterPollApp({ db: handle.db, redis, log: createLogger({ service: 'printer-poll-test' }, 'error'), health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0) }, s, new PollThrottle(redis, rule));
    const poll = (token: string) => guarded.handle(new Request(`http://localhost/print/printer-a/sdp?token=${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=p' }));
    const live = await seedPairedPrinter(handle.db, 'poll-shared', '00:11:62:CC:00:07');
    try {
      if (Date.now() % 60_000 > 50_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 50);
      for (let i = 0; i < 20 && !s.knows(live.token); i++) {
        expect((await poll(live.token)).status).toBe(200);
        await Bun.sleep(150);
      }
      expect(s.knows(live.token)).toBe(true);
      await Bun.sleep(150); // its owner's 100 ms in the cache are over: the next poll reads it again
      const junk: number[] = [];
      for (let i = 0; i < 8; i++) junk.push((await poll(`prt_junk_${i}_${crypto.randomUUID()}`)).status);
      expect(junk).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      expect(s.knows(live.token)).toBe(true);
      expect((await poll(live.token)).status).toBe(200);
      // A token the process never saw live is still refused unread from that address.
      expect((await poll(`prt_junk_${crypto.randomUUID()}`)).status).toBe(429);
    } finally {
      await s.stop();
      await live.drop();
    }
  }, 90_000);
});

describe('notices remembered per printer', () => {
  test('forgotten after a minute (two prunes); a read whose mark is older than what was forgotten is not remembered as idle', async () => {
    const s = new PollState(handle.db);
    await s.listen(DATABASE_URL, 1000, 3_600_000);
    try {
      const old = s.mark();
      const ids = Array.from({ length: 50 }, () => crypto.randomUUID());
      for (const id of ids) await sql`select pg_notify(${PRINTER_TOKENS_CHANNEL}, ${id})`.execute(handle.db);
      await until(() => s.noticedCount === 50);
      s.pruneNotices(); // remembers where the next prune cuts: nothing forgotten yet
      expect(s.noticedCount).toBe(50);
      s.pruneNotices();
      // Before: every notified printer stayed in the map for the life of the process.
      expect(s.noticedCount).toBe(0);
      s.markIdle(ids[0]!, old);
      expect(s.isIdle(ids[0]!)).toBe(false);
      s.markIdle(ids[0]!, s.mark());
      expect(s.isIdle(ids[0]!)).toBe(true);
    } finally {
      await s.stop();
    }
  });
});

describe('printer-poll behind an ingress (TRUSTED_PROXIES)', () => {
  test('made-up tokens count per forwarded client address: one client at its limit does not stop another; without the setting every client is the ingress', async () => {
    const depsOf = (trusted: string | undefined) => ({
      db: handle.db,
      redis,
      log: createLogger({ service: 'printer-poll-test' }, 'error'),
      health: new HealthMonitor(() => checkDependencies(handle.db, redis), 0),
      ...(trusted === undefined ? {} : { clientAddress: throttleAddress(createClientAddress(parseAllowList(trusted, 'TRUSTED_PROXIES'))) }),
    });
    const serve = (trusted: string | undefined) =>
      createPrinterPollApp(depsOf(trusted), state, new PollThrottle(redis, { ...PRINTER_POLL_THROTTLE, name: `printer-poll-ingress-${crypto.randomUUID()}` })).listen({ port: 0, hostname: '127.0.0.1' });
    const poll = (server: ReturnType<typeof serve>, from: string) =>
      fetch(`http://127.0.0.1:${server.server!.port}/print/printer-a/sdp?token=prt_made_up_${crypto.randomUUID()}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
        body: 'ConnectionType=GetRequest&ID=p',
      }).then(async (r) => (await r.text(), r.status));
    // The counting window is clock-aligned (a minute): start well inside one.
    if (Date.now() % 60_000 > 45_000) await Bun.sleep(60_000 - (Date.now() % 60_000) + 50);
    for (const [trusted, other] of [['127.0.0.1', 401], [undefined, 429]] as const) {
      const server = serve(trusted);
      try {
        const statuses: number[] = [];
        for (let i = 0; i < 121; i++) statuses.push(await poll(server, '203.0.113.7'));
        expect(statuses.slice(0, 120)).toEqual(Array(120).fill(401));
        expect(statuses[120]).toBe(429);
        // Another client behind the same ingress: its own allowance when the ingress is trusted, none otherwise.
        expect(await poll(server, '203.0.113.8')).toBe(other);
      } finally {
        server.stop(true);
      }
    }
  }, 90_000);
});
