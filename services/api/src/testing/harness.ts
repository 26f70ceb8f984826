import { tmpdir } from 'node:os';
import { migrateCentral } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { Clock } from '@pos/kernel';
import { createApp } from '../app.ts';
import { buildDeps } from '../deps.ts';
import { startSmtpCatcher, type SmtpCatcher } from '@pos/providers/mail/smtp-catcher';
import { startIdpSimulator, type IdpSimulator } from '@pos/providers/idp/idp-simulator';

export const TEST_ENV = {
  APP_ENV: 'test',
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
  DEVICE_API_KEY: 'test-device-api-key-0123',
  PIN_PEPPER: 'test-pin-pepper-0123456789',
  FISCAL_MASTER_KEY: 'test-fiscal-master-key-0123456789abcdef',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  // Uploaded content of tests goes to a temporary directory, not the checkout.
  OBJECT_STORE_DIR: process.env.OBJECT_STORE_DIR ?? `${tmpdir()}/ordering-test-objects`,
  // Many tests change staff, devices or merchants straight in the database and expect the next request
  // to see it; the API's own writes invalidate the cache, those do not. Cache tests pass a TTL.
  AUTH_CACHE_TTL_MS: '0',
} as const;

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Raw body text, sent as-is (malformed JSON tests). */
  rawBody?: string;
  headers?: Record<string, string>;
  deviceKey?: boolean;
  staffToken?: string;
  /** The socket address the request comes from (default 127.0.0.1). */
  ip?: string;
}

export interface CallResult<B = any> {
  status: number;
  body: B;
  text: string;
  headers: Headers;
}

/**
 * An API wired to the real PostgreSQL and Redis of the test environment, driven through
 * `app.handle(new Request(...))`. Each test file seeds its own merchants (own tenant schemas).
 */
export async function createTestApi(opts: { env?: Record<string, string>; clock?: Clock; repoDir?: string; healthTtlMs?: number } = {}) {
  const env: typeof TEST_ENV & Record<string, string> = { ...TEST_ENV, ...opts.env };
  // Issue 18: every test API mails through a real SMTP catcher and knows an identity provider (the
  // simulator), unless the test names its own; both are real local servers, stopped by close().
  let mail: SmtpCatcher | undefined;
  let idp: IdpSimulator | undefined;
  if (!env.SMTP_URL) {
    mail = await startSmtpCatcher();
    env.SMTP_URL = mail.smtpUrl;
  }
  if (!env.IDP_ISSUER) {
    idp = await startIdpSimulator({ clientId: 'test-idp-client' });
    env.IDP_ISSUER = idp.issuer;
    env.IDP_CLIENT_ID = 'test-idp-client';
  }
  const { deps, close } = await buildDeps(env, { clock: opts.clock, repoDir: opts.repoDir, healthTtlMs: opts.healthTtlMs });
  await migrateCentral(deps.db);
  const app = createApp(deps);
  // app.handle has no socket: stand in for the server's view of the peer address, per request.
  const peers = new WeakMap<Request, string>();
  (app as unknown as { server: unknown }).server = { requestIP: (r: Request) => ({ address: peers.get(r) ?? '127.0.0.1', family: 'IPv4', port: 40000 }) };
  const merchants: DemoSeedResult[] = [];

  async function call<B = any>(method: string, path: string, o: CallOptions = {}): Promise<CallResult<B>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.deviceKey) headers['x-client-api-key'] = env.DEVICE_API_KEY;
    if (o.staffToken) headers['x-pos-staff-token'] = o.staffToken;
    let body: string | undefined;
    if (o.rawBody !== undefined) body = o.rawBody;
    else if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const request = new Request(`http://localhost${path}`, { method, headers, body });
    peers.set(request, o.ip ?? '127.0.0.1');
    const res = await app.handle(request);
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as B, text, headers: res.headers };
  }

  /** Seeds a fresh demo merchant with a unique slug; dropped again by `close()`. */
  async function seed(prefix = 'test'): Promise<DemoSeedResult> {
    const slug = `${prefix}-${crypto.randomUUID().slice(0, 8)}`.toLowerCase();
    const m = await seedDemo(deps.db, { slug, reset: false, apiKey: env.DEVICE_API_KEY, pinPepper: env.PIN_PEPPER });
    merchants.push(m);
    return m;
  }

  /** A device token for a seeded device, minted as activation would (current token_version). */
  async function deviceToken(m: DemoSeedResult, type: 'pos' | 'kiosk' | 'kds' = 'pos', index = 0): Promise<string> {
    const device = m.devices.filter((d) => d.type === type)[index]!;
    const reg = await deps.db.selectFrom('device_registry').select('token_version').where('id', '=', device.id).executeTakeFirstOrThrow();
    return deps.tokens.sign({ type, sub: device.id, merchant_id: m.merchant.id, tenant_database: m.merchant.tenant_database, ver: reg.token_version });
  }

  /** Signs a staff member in on a seeded register; returns the staff token. */
  async function staffLogin(m: DemoSeedResult, role: 'manager' | 'cashier', token: string): Promise<string> {
    const pin = m.staff.find((s) => s.role === role)!.pin;
    const r = await call('POST', '/api/pos/staff/pin-login', { token, deviceKey: true, body: { pin } });
    if (r.status !== 200) throw new Error(`pin-login failed: ${r.status} ${r.text}`);
    return r.body.staff_token as string;
  }

  /** Back-office owner token of a seeded merchant. */
  async function ownerToken(m: DemoSeedResult): Promise<string> {
    const r = await call('POST', '/api/login', { body: { email: m.backoffice.email, password: m.backoffice.password } });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    return r.body.token as string;
  }

  return {
    app,
    deps,
    env,
    call,
    seed,
    deviceToken,
    staffLogin,
    ownerToken,
    mail,
    idp,
    async close() {
      for (const m of merchants) await dropMerchant(deps.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
      await close();
      await mail?.stop();
      await idp?.stop();
    },
  };
}

export type TestApi = Awaited<ReturnType<typeof createTestApi>>;
