import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger, type Clock } from '@pos/kernel';
import { storeCardBWebhook, storeWebhook } from '@pos/core/webhooks/webhook-log';
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
});
