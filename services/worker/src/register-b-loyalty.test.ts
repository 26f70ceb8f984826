import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { createKioskIntent } from '@pos/core/payments/create-kiosk-intent';
import { getKioskPaymentDetails } from '@pos/core/payments/kiosk-payment-queries';
import { defaultFinaliseSteps, finalisePayments, listSteps } from '@pos/core/payments/post-capture';
import { registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { registerBPointsStep } from '@pos/core/integrations/register-b-loyalty';
import { saveRegisterB } from '@pos/core/integrations/register-b-admin';
import { setProgram } from '@pos/core/customers/loyalty';
import { issueLoyaltyToken } from '@pos/core/customers/loyalty-tokens';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { startRegisterBSimulator, type RegisterBSimulator } from '@pos/providers/register-b/register-b-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * Spec 3: "The deferred finalisation job runs loyalty earn (including pushing points to register-b)".
 * A kiosk order of a loyalty customer linked to a register-b relation, captured over card-b (simulator),
 * earns points in our ledger and the real worker's finalisation job credits the same points to the
 * relation at register-b (simulator over HTTP), once per transaction; a failing push is recorded as failed
 * without skipping the other finalisation steps.
 */
const PARTNER_TOKEN = 'rbl-partner-token';
const ACCOUNT = `acct-rbl-${crypto.randomUUID().slice(0, 8)}`;

let env: TestEnv;
let cardB: CardBSimulator;
let rb: RegisterBSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let loc: string;
let customerId: string;
let relation: string;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rbl', CARD_B_CLIENT_SECRET: 'rbl-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_URL: rb.url, REGISTER_B_API_TOKEN: PARTNER_TOKEN });
const credits = () => [...rb.accounts.get(ACCOUNT)!.points.values()];

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rbl', clientSecret: 'rbl-secret-1' });
  rb = startRegisterBSimulator({ apiToken: PARTNER_TOKEN });
  rb.addAccount(ACCOUNT);
  relation = rb.addRelation(ACCOUNT, { name: 'Ann Relation', email: 'ann@example.com' }).number;
  m = await seedDemo(env.handle.db, { slug: `rbl-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  loc = m.locations[0]!.id;
  const now = new Date();
  await env.handle.db
    .insertInto('integration_connections')
    .values({ id: Bun.randomUUIDv7(), provider: 'register-b', external_ref: ACCOUNT, merchant_id: m.merchant.id, settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
    .execute();
  await setProgram(tdb, loc, 1, now);
  customerId = Bun.randomUUIDv7();
  await tdb.insertInto('customers').values({ id: customerId, name: 'Ann', email: 'ann@example.com' }).execute();
  await tdb.insertInto('register_b_relations').values({ relation_number: relation, customer_id: customerId }).execute();
  worker = await startDispatchWorker(env, prefix, providers(), registers());
}, 60_000);
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await rb.stop();
  await env.close();
});

/** 3 espressos and a croissant at the kiosk for the loyalty customer, captured over card-b. */
async function captureLoyaltyOrder(): Promise<string> {
  const deps = { tdb, tenantDatabase: m.merchant.tenant_database, merchantId: m.merchant.id, redis: env.redis, providers: providers(), log: env.log, now: () => new Date() };
  const item = (name: string) => m.items.find((i) => i.name === name)!;
  const device = await tdb.selectFrom('devices').selectAll().where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
  const { token } = await issueLoyaltyToken(tdb, customerId, device.id, new Date());
  const { transaction: t } = await createKioskIntent(deps, device, {
    lines: [
      { item_id: item('Espresso').id, qty: 3 },
      { item_id: item('Croissant').id, qty: 1 },
    ],
    loyalty_token: token,
  });
  await cardB.complete(t.idempotency_key);
  expect((await getKioskPaymentDetails(deps, device, t.idempotency_key)).capture).toBe('dispatched');
  return t.id;
}

const finaliseOf = async (id: string) => {
  const s = await waitFor(async () => (await listSteps(tdb, id)).find((x) => x.step === 'finalise') ?? false, 15_000, 'finalise step');
  return JSON.parse(s.detail!) as Record<string, string>;
};
const earnedBy = async (id: string) => (await tdb.selectFrom('loyalty_ledger').select('points').where('transaction_id', '=', id).where('kind', '=', 'earn').executeTakeFirstOrThrow()).points;

describe('loyalty points pushed to register-b by the finalisation job', () => {
  test('the points earned are credited to the linked relation once, even when the job runs again', async () => {
    const id = await captureLoyaltyOrder();
    const outcome = await finaliseOf(id);
    const points = await earnedBy(id);
    expect(points).toBeGreaterThan(0);
    expect(outcome.loyalty_earn).toStartWith(`earned ${points} points`);
    expect(outcome.register_b_points).toBe(`pushed ${points} points to relation ${relation}`);
    expect(credits()).toEqual([{ reference: id, relation_number: relation, points, balance: points }]);

    // The job again (a re-run): register-b answers the credit already made; nothing is added.
    const steps = defaultFinaliseSteps(tdb, registerBPointsStep(env.handle.db, registers().registerB!, m.merchant.tenant_database, tdb));
    await finalisePayments(tdb, [id], steps);
    expect(credits()).toEqual([{ reference: id, relation_number: relation, points, balance: points }]);
  });

  test('register-b down: the push is recorded as failed in its own boundary, the other steps still run', async () => {
    const before = credits().length;
    rb.failWith(503);
    try {
      const id = await captureLoyaltyOrder();
      const outcome = await finaliseOf(id);
      const points = await earnedBy(id);
      expect(outcome).toEqual({
        loyalty_earn: expect.stringMatching(new RegExp(`^earned ${points} points`)),
        register_b_points: expect.stringMatching(/^failed: /),
        offer_redemption: 'skipped: no offer',
        customer_timeline: 'recorded order_paid',
        kiosk_customer_name: 'set',
        b2b_invoice: 'skipped: no B2B customer',
      });
      expect(credits().length).toBe(before);
    } finally {
      rb.failWith(null);
    }
  });

  test('a customer without a register-b relation: nothing is pushed, the reason is recorded', async () => {
    await tdb.deleteFrom('register_b_relations').where('customer_id', '=', customerId).execute();
    try {
      const before = credits().length;
      const id = await captureLoyaltyOrder();
      expect((await finaliseOf(id)).register_b_points).toBe('skipped: the customer is not linked to a register-b relation');
      expect(credits().length).toBe(before);
    } finally {
      await tdb.insertInto('register_b_relations').values({ relation_number: relation, customer_id: customerId }).execute();
    }
  });
  test("after the merchant switches to another register-b account, points are not credited to the new account's relation with the old link's number (a stranger)", async () => {
    // register-b numbers relations per account from the same start: the new account has a relation with our link's number.
    const next = `acct-rbl-next-${crypto.randomUUID().slice(0, 8)}`;
    rb.addAccount(next);
    const stranger = rb.addRelation(next, { number: relation, name: 'Stranger', email: 'stranger@example.com' });
    expect(stranger.number).toBe(relation);
    const user = await env.handle.db.selectFrom('users').select('id').where('email', '=', m.backoffice.email).executeTakeFirstOrThrow();
    const scope = { db: env.handle.db, tdb, merchant: { ...m.merchant, name: 'rbl', pos_provider: null }, userId: user.id, now: new Date() };
    await saveRegisterB(scope, registers().registerB!, { account_id: next, link_code: rb.accounts.get(next)!.linkCode });
    const id = await captureLoyaltyOrder();
    expect((await finaliseOf(id)).register_b_points).toBe('skipped: the customer is not linked to a register-b relation');
    expect([...rb.accounts.get(next)!.points.values()]).toEqual([]);
  });
});
