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
  const connect = async () => {
    while (!stopped) {
      const c = new pg.Client({ connectionString: url, application_name: 'printer-poll-listen' });
      try {
        c.on('notification', (n) => onNotify(n.channel, n.payload ?? ''));
        c.on('error', () => {});
        c.on('end', () => {
          if (stopped) return;
          onReset();
          setTimeout(() => void connect(), 500);
        });
        await c.connect();
        for (const ch of channels) await c.query(`listen ${pg.escapeIdentifier(ch)}`);
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
