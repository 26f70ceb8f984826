import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger, type Clock } from '@pos/kernel';
import { storeCardBWebhook, storeWebhook } from '@pos/core/webhooks/webhook-log';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { openTestEnv, type TestEnv } from '../test-support.ts';
import { handleWebhooksPurge } from './webhooks-purge.handler.ts';

// Retention (card-b rule 2): card-b rows expire after 7,776,000 s; other providers' rows do not expire.
let env: TestEnv;
beforeAll(async () => {
  env = await openTestEnv();
});
afterAll(() => env.close());

describe('webhooks.purge', () => {
  test('deletes card-b rows older than 90 days, keeps younger ones and other types', async () => {
    const log = createLogger({}, 'error');
    const tag = crypto.randomUUID();
    const old = new Date(Date.now() - 7_776_001 * 1000);
    const young = new Date(Date.now() - 7_775_000 * 1000);
    const a = await storeCardBWebhook(env.handle.db, log, { raw: `{"old":"${tag}"}`, payload: {}, fields: {}, eventType: null, eventId: null, now: old });
    const b = await storeCardBWebhook(env.handle.db, log, { raw: `{"young":"${tag}"}`, payload: {}, fields: {}, eventType: null, eventId: null, now: young });
    const c = await storeWebhook(env.handle.db, log, { type: 'card_a_webhook', provider: 'card-a', raw: `{"cardA":"${tag}"}`, payload: {}, eventType: null, eventId: null, now: old });
    const clock: Clock = { now: () => new Date() } as Clock;
    await handleWebhooksPurge({ at: new Date().toISOString() }, { db: env.handle.db, log, clock, notifications: undefined as never, jobId: 'test' });
    const left = await env.handle.db.selectFrom('webhook_logs').select('id').where('id', 'in', [a!.id, b!.id, c!.id]).execute();
    expect(left.map((r) => r.id).sort()).toEqual([b!.id, c!.id].sort());
  });

  test('deletes pending two-factor sign-ins a day past their end; younger ones stay', async () => {
    const m = await seedDemo(env.handle.db, { slug: `purge-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
    try {
      const user = (await env.handle.db.selectFrom('memberships').select('user_id').where('merchant_id', '=', m.merchant.id).executeTakeFirstOrThrow()).user_id;
      const now = Date.now();
      const row = (expiresAgoMs: number, completed: boolean) => ({
        id: crypto.randomUUID(),
        user_id: user,
        merchant_id: m.merchant.id,
        login_token_hash: crypto.randomUUID(),
        expires_at: new Date(now - expiresAgoMs),
        completed_at: completed ? new Date(now - expiresAgoMs - 60_000) : null,
        created_at: new Date(now - expiresAgoMs - 900_000),
      });
      const ended = [row(2 * 86_400_000, false), row(40 * 86_400_000, true)];
      const recent = [row(3_600_000, false), row(-600_000, false)];
      await env.handle.db.insertInto('otp_challenges').values([...ended, ...recent]).execute();
      const log = createLogger({}, 'error');
      await handleWebhooksPurge({ at: new Date().toISOString() }, { db: env.handle.db, log, clock: { now: () => new Date(now) } as Clock, notifications: undefined as never, jobId: 'test' });
      // Before: one row per good password of a two-factor account, kept forever.
      const left = await env.handle.db.selectFrom('otp_challenges').select('id').where('user_id', '=', user).execute();
      expect(left.map((r) => r.id).sort()).toEqual(recent.map((r) => r.id).sort());
    } finally {
      await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
    }
  });
});
