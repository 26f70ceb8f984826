/**
 * `bun run dev`: the three services together (DESIGN 4, CONTRACTS 4).
 *
 * 1. No `.env` in the repository root: write one from `.env.example` (or from built-in local
 *    defaults when there is no example) with freshly generated secrets, and say so.
 * 2. Load `.env` (variables already in the environment win).
 * 3. Resolve the database once (`DATABASE_URL` unset: the embedded PostgreSQL under `.data/`) and
 *    Redis once, apply every migration, and hand both URLs to the children.
 * 4. Start the payment provider simulators (card-a, card-b, platform-a; CONTRACTS 6) for every
 *    provider whose base URL is not set, and point the platform at them.
 * 5. Start api, worker and printer-poll, each output line prefixed with `[api]`, `[worker]` or
 *    `[printer]`. Ctrl-C or SIGTERM stops them all; if one exits on its own, the others are stopped
 *    and this exits non-zero.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureRedis } from '@pos/kernel';
import { createDatabase, migrateAll, resolveDatabase, type ResolvedDatabase } from '@pos/db';

const ROOT = resolve(import.meta.dir, '..');
const ENV_FILE = join(ROOT, '.env');
const ENV_EXAMPLE = join(ROOT, '.env.example');
const STOP_GRACE_MS = 8000;

const tty = process.stdout.isTTY === true;
const paint = (code: number, s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
const say = (msg: string) => process.stdout.write(`${paint(32, '[dev]')}     ${msg}\n`);
const complain = (msg: string) => process.stderr.write(`${paint(31, '[dev]')}     ${msg}\n`);

// ---------------------------------------------------------------------------------------------
// .env
// ---------------------------------------------------------------------------------------------

/** Secrets generated for a new `.env`, with their lengths. */
const SECRETS: Readonly<Record<string, number>> = { JWT_SECRET: 48, DEVICE_API_KEY: 32, PIN_PEPPER: 32, FISCAL_MASTER_KEY: 48 };

function randomSecret(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const out: string[] = [];
  // Rejection sampling keeps every character equally likely.
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (b < 248 && out.length < length) out.push(alphabet[b % 62]!);
    }
  }
  return out.join('');
}

const DEFAULT_ENV = ['APP_ENV=local', 'DEBUG=false', 'JWT_SECRET=', 'DEVICE_API_KEY=', 'PIN_PEPPER=', 'FISCAL_MASTER_KEY=', ''].join('\n');

/** The text of a new `.env`: the example (or the defaults) with every secret freshly generated. */
function newEnvText(template: string): string {
  const seen = new Set<string>();
  const lines = template.split(/\r?\n/).map((line) => {
    const m = /^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_]*)\s*=.*$/.exec(line);
    const key = m?.[2];
    if (!m || key === undefined || !(key in SECRETS)) return line;
    seen.add(key);
    return `${m[1]}${key}=${randomSecret(SECRETS[key]!)}`;
  });
  for (const [key, length] of Object.entries(SECRETS)) if (!seen.has(key)) lines.push(`${key}=${randomSecret(length)}`);
  return lines.join('\n').replace(/\n*$/, '\n');
}

function ensureEnvFile(): void {
  if (existsSync(ENV_FILE)) return;
  const fromExample = existsSync(ENV_EXAMPLE);
  writeFileSync(ENV_FILE, newEnvText(fromExample ? readFileSync(ENV_EXAMPLE, 'utf8') : DEFAULT_ENV), { mode: 0o600 });
  say(`created .env ${fromExample ? 'from .env.example' : '(no .env.example: local defaults)'} with fresh secrets (${Object.keys(SECRETS).join(', ')})`);
}

/** KEY=VALUE lines; `#` comments, `export`, single or double quotes. */
function parseEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(raw);
    if (!m || m[1] === undefined) continue;
    let value = (m[2] ?? '').trim();
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\"/g, '"');
    } else {
      value = value.replace(/\s+#.*$/, '');
    }
    out[m[1]] = value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Children
// ---------------------------------------------------------------------------------------------

interface Service {
  name: string;
  label: string;
  colour: number;
  entry: string;
}

const SERVICES: readonly Service[] = [
  { name: 'api', label: '[api]', colour: 36, entry: 'services/api/src/main.ts' },
  { name: 'worker', label: '[worker]', colour: 35, entry: 'services/worker/src/main.ts' },
  { name: 'printer-poll', label: '[printer]', colour: 33, entry: 'services/printer-poll/src/main.ts' },
];
const LABEL_WIDTH = Math.max(...SERVICES.map((s) => s.label.length), '[platform-a]'.length) + 1;

interface Running {
  service: Service;
  proc: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  pumps: Promise<void>;
}

/** Copies `stream` to `out` line by line, each line prefixed. */
async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream, prefix: string): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      out.write(`${prefix}${buffered.slice(0, nl)}\n`);
      buffered = buffered.slice(nl + 1);
    }
  }
  buffered += decoder.decode();
  if (buffered) out.write(`${prefix}${buffered}\n`);
}

function spawnService(service: Service, env: Record<string, string>): Running {
  const proc = Bun.spawn([process.execPath, service.entry], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const prefix = paint(service.colour, service.label.padEnd(LABEL_WIDTH));
  const pumps = Promise.all([pump(proc.stdout, process.stdout, prefix), pump(proc.stderr, process.stderr, prefix)]).then(() => {});
  return { service, proc, pumps };
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

ensureEnvFile();
const fileEnv = parseEnv(readFileSync(ENV_FILE, 'utf8'));
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(fileEnv)) env[k] = v;
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
env.APP_ENV ??= 'local';

let database: ResolvedDatabase;
try {
  database = await resolveDatabase(env, ROOT, (m) => say(m));
  env.DATABASE_URL = database.url;
  env.REDIS_URL = await ensureRedis(env.REDIS_URL || undefined);
  const handle = createDatabase(database.url, { max: 2, applicationName: 'dev-migrate' });
  try {
    const { tenants } = await migrateAll(handle.db);
    say(`migrations applied (central and ${tenants} tenant schema${tenants === 1 ? '' : 's'})`);
  } finally {
    await handle.close();
  }
} catch (e) {
  complain(`cannot start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}

// Payment simulators: a provider whose base URL names a real address is left alone.
interface Simulator extends Service {
  baseUrlVar: string;
  portVar: string;
  defaultPort: number;
  credentials: Record<string, string>;
}
const SIMULATORS: readonly Simulator[] = [
  { name: 'card-a-sim', label: '[card-a]', colour: 34, entry: 'packages/providers/src/card-a/main.ts', baseUrlVar: 'CARD_A_BASE_URL', portVar: 'CARD_A_SIM_PORT', defaultPort: 3301, credentials: { CARD_A_SECRET_KEY: 'sk_sim_' } },
  { name: 'card-b-sim', label: '[card-b]', colour: 34, entry: 'packages/providers/src/card-b/main.ts', baseUrlVar: 'CARD_B_BASE_URL', portVar: 'CARD_B_SIM_PORT', defaultPort: 3302, credentials: { CARD_B_CLIENT_ID: 'sim-client-', CARD_B_CLIENT_SECRET: 'sim-secret-' } },
  { name: 'platform-a-sim', label: '[platform-a]', colour: 34, entry: 'packages/providers/src/platform-a/main.ts', baseUrlVar: 'PLATFORM_A_BASE_URL', portVar: 'PLATFORM_A_SIM_PORT', defaultPort: 3303, credentials: { PLATFORM_A_ACCESS_TOKEN: 'sim-token-' } },
];
const simulators: Running[] = [];
for (const sim of SIMULATORS) {
  if (env[sim.baseUrlVar]) {
    say(`${sim.baseUrlVar} is set: no ${sim.name}`);
    continue;
  }
  env[sim.portVar] ||= String(sim.defaultPort);
  for (const [k, prefix] of Object.entries(sim.credentials)) env[k] ||= prefix + randomSecret(24);
  env[sim.baseUrlVar] = `http://127.0.0.1:${env[sim.portVar]}`;
  simulators.push(spawnService(sim, env));
}
for (const sim of SIMULATORS) {
  const url = env[sim.baseUrlVar]!;
  if (!url.startsWith('http://127.0.0.1:')) continue;
  for (let i = 0; i < 50; i++) {
    if (await fetch(`${url}/_sim/ping`).then(() => true, () => false)) break;
    await Bun.sleep(100);
  }
}

const children = [...simulators, ...SERVICES.map((s) => spawnService(s, env))];
say(`started ${children.map((c) => `${c.service.name} (pid ${c.proc.pid})`).join(', ')}`);

let stopping: Promise<never> | undefined;

function stopAll(exitCode: number, why: string): Promise<never> {
  stopping ??= (async () => {
    say(`stopping (${why})`);
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGTERM');
    const allExited = Promise.all(children.map((c) => c.proc.exited));
    const timedOut = await Promise.race([allExited.then(() => false), Bun.sleep(STOP_GRACE_MS).then(() => true)]);
    if (timedOut) {
      for (const c of children) {
        if (c.proc.exitCode === null && c.proc.signalCode === null) {
          complain(`${c.service.name} did not stop within ${STOP_GRACE_MS} ms; killing it`);
          c.proc.kill('SIGKILL');
        }
      }
      await allExited;
    }
    await Promise.all(children.map((c) => c.pumps.catch(() => {})));
    await database.stop().catch((e: unknown) => complain(`stopping the embedded database: ${e instanceof Error ? e.message : String(e)}`));
    say('stopped');
    process.exit(exitCode);
  })();
  return stopping;
}

process.on('SIGINT', () => void stopAll(0, 'SIGINT'));
process.on('SIGTERM', () => void stopAll(0, 'SIGTERM'));

for (const c of children) {
  void c.proc.exited.then((code) => {
    if (stopping) return;
    complain(`${c.service.name} exited unexpectedly (${c.proc.signalCode ?? `code ${code}`}); stopping the others`);
    void stopAll(1, `${c.service.name} exited`);
  });
}
