import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import Redis from 'ioredis';
import { createDatabase, migrateAll, resolveDatabase } from '@pos/db';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { E2E } from './stack-env.ts';

/**
 * Playwright's web server: a fresh database (dropped and recreated), migrations, the demo seed
 * (written to e2e/.run/seed.json for the suites), then the three real services as child processes.
 */
const root = join(import.meta.dir, '..', '..');
const base = await resolveDatabase(process.env, root, (m) => console.error(`[stack] ${m}`));
const url = new URL(base.url);
const dbName = process.env.E2E_DATABASE ?? 'ordering_e2e';
const admin = new pg.Client({ connectionString: base.url });
await admin.connect();
await admin.query(`drop database if exists ${dbName} with (force)`);
await admin.query(`create database ${dbName}`);
await admin.end();
url.pathname = `/${dbName}`;
const DATABASE_URL = url.toString();

const h = createDatabase(DATABASE_URL, { max: 4 });
await migrateAll(h.db);
const seed = await seedDemo(h.db, { slug: 'demo', reset: true, apiKey: E2E.env.DEVICE_API_KEY, pinPepper: E2E.env.PIN_PEPPER });
await h.close();
mkdirSync(dirname(E2E.seedFile), { recursive: true });
writeFileSync(E2E.seedFile, JSON.stringify(seed, null, 2));
writeFileSync(E2E.databaseUrlFile, DATABASE_URL);

// A Redis database of its own, emptied per run: throttle windows of an earlier run do not leak in.
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
redisUrl.pathname = `/${process.env.E2E_REDIS_DB ?? '1'}`;
const redis = new Redis(redisUrl.toString());
await redis.flushdb();
redis.disconnect();

const env = {
  ...process.env,
  REDIS_URL: redisUrl.toString(),
  ...E2E.env,
  DATABASE_URL,
  API_PORT: String(E2E.apiPort),
  PRINTER_POLL_PORT: String(E2E.printerPort),
  WORKER_PORT: String(E2E.workerPort),
};
const simEnv = {
  ...env,
  CARD_A_SIM_PORT: String(E2E.simPorts.cardA),
  CARD_B_SIM_PORT: String(E2E.simPorts.cardB),
  PLATFORM_A_SIM_PORT: String(E2E.simPorts.platformA),
  SHOP_A_OAUTH_SIM_PORT: String(E2E.simPorts.shopAOAuth),
  PLATFORM_A_OAUTH_SIM_PORT: String(E2E.simPorts.platformAOAuth),
  DELIVERY_B_OAUTH_SIM_PORT: String(E2E.simPorts.deliveryBOAuth),
  REGISTER_C_OAUTH_SIM_PORT: String(E2E.simPorts.registerCOAuth),
  SMS_SIM_PORT: String(E2E.simPorts.sms),
  MAIL_API_SIM_PORT: String(E2E.simPorts.mailApi),
  CHALLENGE_SIM_PORT: String(E2E.simPorts.challenge),
  REGISTER_A_SIM_PORT: String(E2E.simPorts.registerA),
  REGISTER_C_SIM_PORT: String(E2E.simPorts.registerC),
  // register-a's signed webhooks go to the API; retries compressed to 2 s.
  REGISTER_A_SIM_WEBHOOK_URL: `http://127.0.0.1:${E2E.apiPort}/api/webhook/register-a`,
  REGISTER_A_SIM_WEBHOOK_RETRY_MS: '2000',
  REGISTER_B_SIM_PORT: String(E2E.simPorts.registerB),
  REGISTER_B_SIM_ACCOUNTS: 'e2e-rb-account-1',
  // The marketplaces' store APIs (issue 17); their signed order webhooks go to the API.
  DELIVERY_A_SIM_PORT: String(E2E.simPorts.deliveryA),
  DELIVERY_A_SIM_STORES: 'e2e-da-store-1',
  DELIVERY_A_SIM_WEBHOOK_URL: `http://127.0.0.1:${E2E.apiPort}/api/webhook/delivery-a/orders`,
  DELIVERY_B_SIM_PORT: String(E2E.simPorts.deliveryB),
  DELIVERY_B_SIM_STORES: 'e2e-db-store-1',
  DELIVERY_B_SIM_WEBHOOK_URL: `http://127.0.0.1:${E2E.apiPort}/api/webhook/delivery-b`,
  // register-d's transport (issue 17 item 4).
  REGISTER_D_SIM_PORT: String(E2E.simPorts.registerD),
  REGISTER_D_SIM_SITES: 'vendor-a:e2e-rd-site-1',
  // card-a's simulator delivers its signed terminal webhooks to the API (issue 13).
  CARD_A_SIM_WEBHOOK_URL: `http://127.0.0.1:${E2E.apiPort}/api/card-a-webhook/BE`,
  // Issue 18: SMTP catcher and identity-provider simulator.
  SMTP_CATCHER_SMTP_PORT: String(E2E.simPorts.smtp),
  SMTP_CATCHER_HTTP_PORT: String(E2E.simPorts.smtpHttp),
  IDP_SIM_PORT: String(E2E.simPorts.idp),
};
// The payment simulators first (real HTTP servers, CONTRACTS 6), then the services pointed at them.
const simulators = [
  ['card-a-sim', 'packages/providers/src/card-a/main.ts'],
  ['card-b-sim', 'packages/providers/src/card-b/main.ts'],
  ['platform-a-sim', 'packages/providers/src/platform-a/main.ts'],
  ['shop-a-oauth-sim', 'packages/providers/src/shop-a/main.ts'],
  ['platform-a-oauth-sim', 'packages/providers/src/platform-a/oauth-main.ts'],
  ['delivery-b-oauth-sim', 'packages/providers/src/delivery-b/main.ts'],
  ['register-c-oauth-sim', 'packages/providers/src/register-c/main.ts'],
  ['register-c-sim', 'packages/providers/src/register-c/api-main.ts'],
  ['sms-sim', 'packages/providers/src/sms/main.ts'],
  ['mail-api-sim', 'packages/providers/src/mail-api/main.ts'],
  ['challenge-sim', 'packages/providers/src/challenge/main.ts'],
  ['register-a-sim', 'packages/providers/src/register-a/main.ts'],
  ['register-b-sim', 'packages/providers/src/register-b/main.ts'],
  ['delivery-a-sim', 'packages/providers/src/delivery-a/main.ts'],
  ['delivery-b-sim', 'packages/providers/src/delivery-b/api-main.ts'],
  ['register-d-sim', 'packages/providers/src/register-d/main.ts'],
  ['smtp-catcher', 'packages/providers/src/mail/main.ts'],
  ['idp-sim', 'packages/providers/src/idp/main.ts'],
] as const;
const simChildren = simulators.map(([name, entry]) => {
  const child = Bun.spawn(['bun', entry], { cwd: root, env: simEnv, stdout: 'inherit', stderr: 'inherit' });
  child.exited.then((code) => {
    if (!stopping) {
      console.error(`[stack] ${name} exited with ${code}`);
      void stop(1);
    }
  });
  return child;
});

const services = [
  ['api', 'services/api/src/main.ts'],
  ['worker', 'services/worker/src/main.ts'],
  ['printer', 'services/printer-poll/src/main.ts'],
] as const;
const children = services.map(([name, entry]) => {
  const child = Bun.spawn(['bun', entry], { cwd: root, env, stdout: 'inherit', stderr: 'inherit' });
  child.exited.then((code) => {
    if (!stopping) {
      console.error(`[stack] ${name} exited with ${code}`);
      void stop(1);
    }
  });
  return child;
});

// One readiness URL for Playwright: 200 once all three services answer their health routes.
const probes = [
  `http://127.0.0.1:${E2E.apiPort}/api/health/readiness`,
  `${E2E.env.CARD_A_BASE_URL}/_sim/ping`,
  `${E2E.env.CARD_B_BASE_URL}/_sim/ping`,
  `${E2E.env.PLATFORM_A_BASE_URL}/_sim/ping`,
  `${E2E.env.SHOP_A_OAUTH_URL}/_sim/ping`,
  `${E2E.env.PLATFORM_A_OAUTH_URL}/_sim/ping`,
  `${E2E.env.DELIVERY_B_OAUTH_URL}/_sim/ping`,
  `${E2E.env.REGISTER_C_OAUTH_URL}/_sim/ping`,
  `${E2E.env.REGISTER_C_API_URL}/_sim/ping`,
  `${E2E.env.SMS_BASE_URL}/_sim/ping`,
  `${E2E.env.MAIL_API_BASE_URL}/_sim/ping`,
  `${E2E.env.CHALLENGE_BASE_URL}/_sim/ping`,
  `${E2E.env.REGISTER_A_BASE_URL}/_sim/ping`,
  `${E2E.env.REGISTER_B_API_URL}/_sim/ping`,
  `${E2E.env.DELIVERY_A_API_URL}/_sim/ping`,
  `${E2E.env.DELIVERY_B_API_URL}/_sim/ping`,
  `${E2E.env.REGISTER_D_API_URL}/_sim/ping`,
  `http://127.0.0.1:${E2E.simPorts.smtpHttp}/_sim/ping`,
  `${E2E.env.IDP_ISSUER}/_sim/ping`,
  `http://127.0.0.1:${E2E.workerPort}/health`,
  `http://127.0.0.1:${E2E.printerPort}/health`,
];
Bun.serve({
  port: E2E.stackPort,
  hostname: '127.0.0.1',
  async fetch() {
    const ok = await Promise.all(probes.map((u) => fetch(u).then((r) => r.ok, () => false)));
    return new Response(ok.every(Boolean) ? 'ready' : 'starting', { status: ok.every(Boolean) ? 200 : 503 });
  },
});

let stopping = false;
async function stop(code: number) {
  stopping = true;
  for (const c of [...children, ...simChildren]) c.kill('SIGTERM');
  await Promise.all([...children, ...simChildren].map((c) => c.exited));
  await base.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));
