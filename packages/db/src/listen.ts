import pg from 'pg';

/**
 * A LISTEN connection of its own (issue 15: the poll service learns of new print jobs and revoked
 * printer tokens from NOTIFY, sent in the writing transaction and delivered at its commit). On a lost
 * connection `onReset` runs (whatever was learnt may be stale) and it reconnects.
 */
export function listenChannels(url: string, channels: readonly string[], onNotify: (channel: string, payload: string) => void, onReset: () => void): { ready: Promise<void>; stop: () => Promise<void> } {
  let client: pg.Client | null = null;
  let stopped = false;
  let resolveReady: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  // One loop at a time: it tries until a connection listens, then ends; only the end of that listening
  // connection starts the next loop. pg emits `end` for a connection that failed to open too: when that
  // also started a loop, every failed attempt doubled the loops (a database down for 5 s left about a
  // thousand, each opening its own LISTEN connection once it came back).
  const connect = async () => {
    while (!stopped) {
      const c = new pg.Client({ connectionString: url, application_name: 'printer-poll-listen' });
      let ended = false;
      try {
        c.on('notification', (n) => onNotify(n.channel, n.payload ?? ''));
        c.on('error', () => {});
        c.on('end', () => {
          ended = true;
          if (stopped || client !== c) return;
          client = null;
          onReset();
          setTimeout(() => void connect(), 500);
        });
        await c.connect();
        for (const ch of channels) await c.query(`listen ${pg.escapeIdentifier(ch)}`);
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        // Ended before it became the listening one: its end was nobody's to handle, so try again here.
        if (ended) throw new Error('the LISTEN connection ended while it was set up');
        client = c;
        onReset();
        resolveReady();
        return;
      } catch {
        await c.end().catch(() => {});
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  void connect();
  return {
    ready,
    async stop() {
      stopped = true;
      await client?.end().catch(() => {});
    },
  };
}
