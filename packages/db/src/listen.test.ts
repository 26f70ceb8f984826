import { afterAll, describe, expect, test } from 'bun:test';
import pg from 'pg';
import type { Socket, TCPSocketListener } from 'bun';
import { listenChannels } from './listen.ts';

/**
 * `listenChannels` (the printer-poll service's LISTEN connection) through a real TCP proxy in front of
 * PostgreSQL that can refuse connections (a database restarting) or pass them on, and cut the ones it
 * passed (a lost connection). One reconnect loop at a time: a database down for a while must leave one
 * LISTEN connection when it is back, not one per failed attempt.
 */
const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const target = new globalThis.URL(URL);
const channel = `listen_test_${crypto.randomUUID().slice(0, 8)}`;

interface Link {
  upstream?: Socket<undefined>;
  pending: Uint8Array[];
}

/** Accepts on a free port; `refuse` closes each connection at once, `forward` pipes it to PostgreSQL. */
function proxy() {
  let mode: 'refuse' | 'forward' = 'refuse';
  let attempts = 0;
  const open = new Set<Socket<Link>>();
  const server: TCPSocketListener<Link> = Bun.listen<Link>({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      async open(s) {
        attempts++;
        s.data = { pending: [] };
        if (mode === 'refuse') {
          s.end();
          return;
        }
        open.add(s);
        s.data.upstream = await Bun.connect({
          hostname: target.hostname,
          port: Number(target.port || 5432),
          socket: {
            data: (_u, chunk) => void s.write(chunk),
            close: () => void s.end(),
            error: () => void s.end(),
          },
        });
        for (const p of s.data.pending) s.data.upstream.write(p);
        s.data.pending = [];
      },
      data(s, chunk) {
        if (s.data.upstream) s.data.upstream.write(chunk);
        else s.data.pending.push(new Uint8Array(chunk));
      },
      close(s) {
        open.delete(s);
        s.data.upstream?.end();
      },
      error(s) {
        open.delete(s);
        s.data.upstream?.end();
      },
    },
  });
  const url = new globalThis.URL(URL);
  url.hostname = '127.0.0.1';
  url.port = String(server.port);
  return {
    url: url.toString(),
    attempts: () => attempts,
    open: () => open.size,
    set: (m: 'refuse' | 'forward') => void (mode = m),
    cut: () => {
      for (const s of open) s.end();
    },
    stop: () => server.stop(true),
  };
}

const notify = async (payload: string) => {
  const c = new pg.Client({ connectionString: URL });
  await c.connect();
  await c.query('select pg_notify($1, $2)', [channel, payload]);
  await c.end();
};
const until = async (what: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await Bun.sleep(20);
  }
};

const p = proxy();
afterAll(() => p.stop());

describe('listenChannels', () => {
  test('a database refusing for 3 s costs one attempt per half second, then one LISTEN connection; a lost connection is replaced by one', async () => {
    const got: string[] = [];
    let resets = 0;
    const l = listenChannels(p.url, [channel], (_c, payload) => got.push(payload), () => resets++);
    try {
      await Bun.sleep(3000);
      // One loop: about six attempts in 3 s. Every failed attempt used to start one more loop (2^n).
      expect(p.attempts()).toBeGreaterThanOrEqual(4);
      expect(p.attempts()).toBeLessThanOrEqual(8);

      p.set('forward');
      await l.ready;
      await Bun.sleep(1500);
      expect(p.open()).toBe(1);
      const attemptsWhenUp = p.attempts();
      await notify('first');
      await until(() => got.includes('first'));

      // The connection is cut (a restart): one reset, one new LISTEN connection, notifications flow again.
      const resetsBefore = resets;
      p.cut();
      await until(() => p.open() === 1 && resets >= resetsBefore + 2);
      await Bun.sleep(1500);
      expect(p.open()).toBe(1);
      expect(p.attempts()).toBe(attemptsWhenUp + 1);
      await notify('second');
      await until(() => got.includes('second'));
      expect(got).toEqual(['first', 'second']);
    } finally {
      await l.stop();
    }
    await until(() => p.open() === 0);
  }, 20_000);
});
