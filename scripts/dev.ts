/**
 * `bun run dev`: the three services together (DESIGN 4, CONTRACTS 4).
 *
 * 1. No `.env` in the repository root: write one from `.env.example` (or from built-in local
 *    defaults when there is no example) with freshly generated secrets, and say so.
 * 2. Load `.env` (variables already in the environment win).
 * 3. Resolve the database once (`DATABASE_URL` unset: the embedded PostgreSQL under `.data/`) and
 *    Redis once, apply every migration, and hand both URLs to the children.
 * 4. Start the payment provider simulators (card-a, card-b, platform-a; CONTRACTS 6) for every
 *    provider whose base URL is not set, point the platform at them and their webhooks at the API
 *    (`dev-webhooks.ts`).
 * 5. Start api, worker and printer-poll, each output line prefixed with `[api]`, `[worker]` or
 *    `[printer]`. Ctrl-C or SIGTERM stops them all; if one exits on its own, the others are stopped
 *    and this exits non-zero.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureRedis } from '@pos/kernel';
import { createDatabase, migrateAll, resolveDatabase, type ResolvedDatabase } from '@pos/db';
import { devWebhookEnv } from './dev-webhooks.ts';

const ROOT = resolve(import.meta.dir, '..');
const ENV_FILE = join(ROOT, '.env');
const ENV_EXAMPLE = join(ROOT, '.env.example');
const STOP_GRACE_MS = 8000;
/** How long a child that exited waits for a Ctrl-C this process received at the same moment (see the exit handler). */
const STOP_SIGNAL_GRACE_MS = 300;

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
  { name: 'card-a-sim', label: '[card-a]', colour: 34, entry: 'packages/providers/src/card-a/main.ts', baseUrlVar: 'CARD_A_BASE_URL', portVar: 'CARD_A_SIM_PORT', defaultPort: 3301, credentials: { CARD_A_SECRET_KEY: 'sk_sim_', CARD_A_DEVICE_PRICE_ID: 'price_sim_device_' } },
  { name: 'card-b-sim', label: '[card-b]', colour: 34, entry: 'packages/providers/src/card-b/main.ts', baseUrlVar: 'CARD_B_BASE_URL', portVar: 'CARD_B_SIM_PORT', defaultPort: 3302, credentials: { CARD_B_CLIENT_ID: 'sim-client-', CARD_B_CLIENT_SECRET: 'sim-secret-' } },
  { name: 'platform-a-sim', label: '[platform-a]', colour: 34, entry: 'packages/providers/src/platform-a/main.ts', baseUrlVar: 'PLATFORM_A_BASE_URL', portVar: 'PLATFORM_A_SIM_PORT', defaultPort: 3303, credentials: { PLATFORM_A_ACCESS_TOKEN: 'sim-token-' } },
  // OAuth token endpoints of the integration connect flows (issue 13).
  { name: 'shop-a-oauth-sim', label: '[shop-a]', colour: 34, entry: 'packages/providers/src/shop-a/main.ts', baseUrlVar: 'SHOP_A_OAUTH_URL', portVar: 'SHOP_A_OAUTH_SIM_PORT', defaultPort: 3304, credentials: { SHOP_A_CLIENT_ID: 'sim-client-', SHOP_A_CLIENT_SECRET: 'sim-secret-' } },
  { name: 'platform-a-oauth-sim', label: '[platform-a]', colour: 34, entry: 'packages/providers/src/platform-a/oauth-main.ts', baseUrlVar: 'PLATFORM_A_OAUTH_URL', portVar: 'PLATFORM_A_OAUTH_SIM_PORT', defaultPort: 3305, credentials: { PLATFORM_A_CLIENT_ID: 'sim-client-', PLATFORM_A_CLIENT_SECRET: 'sim-secret-' } },
  { name: 'delivery-b-oauth-sim', label: '[delivery-b]', colour: 34, entry: 'packages/providers/src/delivery-b/main.ts', baseUrlVar: 'DELIVERY_B_OAUTH_URL', portVar: 'DELIVERY_B_OAUTH_SIM_PORT', defaultPort: 3323, credentials: { DELIVERY_B_CLIENT_ID: 'sim-client-', DELIVERY_B_CLIENT_SECRET: 'sim-secret-' } },
  // register-a (issue 17): token signing keys of its two namespaces; POST /_sim/setup answers a token.
  { name: 'register-a-sim', label: '[register-a]', colour: 34, entry: 'packages/providers/src/register-a/main.ts', baseUrlVar: 'REGISTER_A_BASE_URL', portVar: 'REGISTER_A_SIM_PORT', defaultPort: 3308, credentials: { REGISTER_A_SIM_PROD_KEY: 'sim-prod-', REGISTER_A_SIM_STAGING_KEY: 'sim-staging-' } },
  { name: 'register-c-oauth-sim', label: '[register-c]', colour: 34, entry: 'packages/providers/src/register-c/main.ts', baseUrlVar: 'REGISTER_C_OAUTH_URL', portVar: 'REGISTER_C_OAUTH_SIM_PORT', defaultPort: 3307, credentials: { REGISTER_C_CLIENT_ID: 'sim-client-', REGISTER_C_CLIENT_SECRET: 'sim-secret-' } },
  // register-c API (issue 17 item 4): accepts the tokens of the OAuth simulator above (listed after it, so it gets its URL and client).
  { name: 'register-c-sim', label: '[register-c]', colour: 34, entry: 'packages/providers/src/register-c/api-main.ts', baseUrlVar: 'REGISTER_C_API_URL', portVar: 'REGISTER_C_SIM_PORT', defaultPort: 3321, credentials: {} },
  // Customer login providers (issue 16): SMS, e-mail send, bot challenge.
  { name: 'sms-sim', label: '[sms]', colour: 34, entry: 'packages/providers/src/sms/main.ts', baseUrlVar: 'SMS_BASE_URL', portVar: 'SMS_SIM_PORT', defaultPort: 3311, credentials: { SMS_API_KEY: 'sim-sms-' } },
  { name: 'mail-api-sim', label: '[mail-api]', colour: 34, entry: 'packages/providers/src/mail-api/main.ts', baseUrlVar: 'MAIL_API_BASE_URL', portVar: 'MAIL_API_SIM_PORT', defaultPort: 3312, credentials: { MAIL_API_KEY: 'sim-mail-' } },
  { name: 'challenge-sim', label: '[challenge]', colour: 34, entry: 'packages/providers/src/challenge/main.ts', baseUrlVar: 'CHALLENGE_BASE_URL', portVar: 'CHALLENGE_SIM_PORT', defaultPort: 3313, credentials: { CHALLENGE_SECRET: 'sim-challenge-' } },
  { name: 'geocoding-sim', label: '[geocoding]', colour: 34, entry: 'packages/providers/src/geocoding/main.ts', baseUrlVar: 'GEOCODING_BASE_URL', portVar: 'GEOCODING_SIM_PORT', defaultPort: 3314, credentials: { GEOCODING_API_KEY: 'geo-sim-' } },
  // delivery-a store API (issue 17 administration routes).
  { name: 'delivery-a-sim', label: '[delivery-a]', colour: 34, entry: 'packages/providers/src/delivery-a/main.ts', baseUrlVar: 'DELIVERY_A_API_URL', portVar: 'DELIVERY_A_SIM_PORT', defaultPort: 3361, credentials: { DELIVERY_A_API_TOKEN: 'sim-token-', DELIVERY_A_WEBHOOK_SECRET: 'sim-whsec-' } },
  // delivery-b store API (issue 17 item 4 administration routes); delivery-b/main.ts is its OAuth endpoint.
  { name: 'delivery-b-sim', label: '[delivery-b]', colour: 34, entry: 'packages/providers/src/delivery-b/api-main.ts', baseUrlVar: 'DELIVERY_B_API_URL', portVar: 'DELIVERY_B_SIM_PORT', defaultPort: 3340, credentials: { DELIVERY_B_API_TOKEN: 'sim-token-', DELIVERY_B_WEBHOOK_SECRET: 'sim-whsec-' } },
  // register-d transport (issue 17 item 4): the hub in front of the register vendors (REGISTER_D_VENDORS).
  { name: 'register-d-sim', label: '[register-d]', colour: 34, entry: 'packages/providers/src/register-d/main.ts', baseUrlVar: 'REGISTER_D_API_URL', portVar: 'REGISTER_D_SIM_PORT', defaultPort: 3322, credentials: { REGISTER_D_API_TOKEN: 'sim-token-' } },
  // register-b partner API (issue 17 item 4 administration routes and its scheduled catalog sync).
  { name: 'register-b-sim', label: '[register-b]', colour: 34, entry: 'packages/providers/src/register-b/main.ts', baseUrlVar: 'REGISTER_B_API_URL', portVar: 'REGISTER_B_SIM_PORT', defaultPort: 3320, credentials: { REGISTER_B_API_TOKEN: 'sim-token-' } },
  // Back-office settings (issue 18): VAT check, translation.
  { name: 'vat-check-sim', label: '[vat-check]', colour: 34, entry: 'packages/providers/src/vat-check/main.ts', baseUrlVar: 'VAT_CHECK_BASE_URL', portVar: 'VAT_CHECK_SIM_PORT', defaultPort: 3315, credentials: {} },
  { name: 'translation-sim', label: '[translation]', colour: 34, entry: 'packages/providers/src/translation/main.ts', baseUrlVar: 'TRANSLATION_BASE_URL', portVar: 'TRANSLATION_SIM_PORT', defaultPort: 3316, credentials: { TRANSLATION_API_KEY: 'sim-key-' } },
  { name: 'generation-sim', label: '[generation]', colour: 35, entry: 'packages/providers/src/generation/main.ts', baseUrlVar: 'GENERATION_BASE_URL', portVar: 'GENERATION_SIM_PORT', defaultPort: 3335, credentials: { GENERATION_API_KEY: 'sim-key-' } },
  // Issue 18: the identity provider of POST /login/idp (discovery + JWKS + a token-signing test endpoint).
  { name: 'idp-sim', label: '[idp]', colour: 34, entry: 'packages/providers/src/idp/main.ts', baseUrlVar: 'IDP_ISSUER', portVar: 'IDP_SIM_PORT', defaultPort: 3318, credentials: { IDP_CLIENT_ID: 'sim-client-' } },
];
const simulators: Running[] = [];
// The simulators started below send their webhooks to this API, with secrets both sides read here.
Object.assign(env, devWebhookEnv(env, new Set(SIMULATORS.filter((s) => !env[s.baseUrlVar]).map((s) => s.baseUrlVar)), randomSecret));
// A register-b account for the dev seed to connect (POST /back-office/register-b {account_id, link_code: LINK-<id>}).
env.REGISTER_B_SIM_ACCOUNTS ||= 'dev-register-b-account';
// register-c's connect flow (POST /back-office/register-c/oauth) comes back to this API's callback.
env.REGISTER_C_OAUTH_REDIRECT_URI ||= `http://127.0.0.1:${env.API_PORT || 3000}/api/register-c/callback`;
// delivery-b's connect flow likewise; both sign their OAuth state (without a secret, connecting answers 503).
env.DELIVERY_B_OAUTH_REDIRECT_URI ||= `http://127.0.0.1:${env.API_PORT || 3000}/api/delivery-b/callback`;
env.OAUTH_STATE_SECRET ||= randomSecret(32);
// Addresses the platform hands out (a printer's poll URL, mail links, QR codes, a checkout's way back)
// follow the ports of this run: their defaults name ports 3000 and 3100.
env.PRINTER_POLL_PUBLIC_URL ||= `http://localhost:${env.PRINTER_POLL_PORT || 3100}/print/printer-a/sdp`;
env.APP_URL ||= `http://localhost:${env.API_PORT || 3000}`;
env.TABLE_QR_PUBLIC_BASE_URL ||= `http://localhost:${env.API_PORT || 3000}/api`;
env.ONLINE_ORDERING_PUBLIC_URL ||= `http://localhost:${env.API_PORT || 3000}`;
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
// Integration tokens (register-a's pasted token) are stored encrypted: without a key in .env, one for
// this run (tokens saved under it must be pasted again after a restart).
env.INTEGRATION_TOKEN_KEY ||= Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
for (const sim of SIMULATORS) {
  const url = env[sim.baseUrlVar]!;
  if (!url.startsWith('http://127.0.0.1:')) continue;
  for (let i = 0; i < 50; i++) {
    if (await fetch(`${url}/_sim/ping`).then(() => true, () => false)) break;
    await Bun.sleep(100);
  }
}

// Issue 18: a local SMTP catcher for the account mails unless SMTP_URL names a relay; read the
// mails at http://127.0.0.1:3317/messages (SMTP_CATCHER_HTTP_PORT).
if (!env.SMTP_URL) {
  env.SMTP_CATCHER_SMTP_PORT ||= '2525';
  env.SMTP_CATCHER_HTTP_PORT ||= '3317';
  env.SMTP_URL = `smtp://127.0.0.1:${env.SMTP_CATCHER_SMTP_PORT}`;
  simulators.push(spawnService({ name: 'smtp-catcher', label: '[mail]', colour: 34, entry: 'packages/providers/src/mail/main.ts' }, env));
  say(`mails are caught: http://127.0.0.1:${env.SMTP_CATCHER_HTTP_PORT}/messages`);
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
  void c.proc.exited.then(async (code) => {
    // Ctrl-C reaches every process of the terminal's group: a child may exit on it before this
    // process's own SIGINT handler has run. Give that handler a moment before calling it a crash.
    await Bun.sleep(STOP_SIGNAL_GRACE_MS);
    if (stopping) return;
    complain(`${c.service.name} exited unexpectedly (${c.proc.signalCode ?? `code ${code}`}); stopping the others`);
    void stopAll(1, `${c.service.name} exited`);
  });
}
