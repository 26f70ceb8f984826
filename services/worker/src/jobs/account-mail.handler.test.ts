import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createLogger, type Clock } from '@pos/kernel';
import { sha256 } from '@pos/core/accounts/account-tokens';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
import { startSmtpCatcher, type SmtpCatcher } from '@pos/providers/mail/smtp-catcher';
import { openTestEnv, type TestEnv } from '../test-support.ts';
import { createAccountMailHandler } from './account-mail.handler.ts';

// The worker mails the back-office account tokens (`account.mail`) that the API only queues.
let env: TestEnv;
let smtp: SmtpCatcher;
beforeAll(async () => {
  env = await openTestEnv();
  smtp = await startSmtpCatcher();
});
afterAll(async () => {
  await smtp.stop();
  await env.close();
});

describe('account.mail', () => {
  test('issues the token and mails it; a verification for a verified account sends nothing; without SMTP the job fails', async () => {
    const log = createLogger({}, 'error');
    const clock: Clock = { now: () => new Date() } as Clock;
    const ctx = { db: env.handle.db, log, clock, notifications: undefined as never, jobId: 'test' };
    const id = Bun.randomUUIDv7();
    const email = `worker-${id.slice(-8)}@example.com`;
    await env.handle.db.insertInto('users').values({ id, email, password_hash: 'x', name: 'Wanda', phone: null, business_info: JSON.stringify({}), email_verified_at: null, reseller_id: null }).execute();
    const handler = createAccountMailHandler({ db: env.handle.db, mailer: mailerFromEnv({ SMTP_URL: smtp.smtpUrl }), appUrl: 'http://bo.test' });
    await handler({ user_id: id, purpose: 'reset_password' }, ctx);
    const m = await smtp.waitFor(email, (x) => x.subject === 'Reset your password');
    const token = /Reset token: (\S+)/.exec(m.text)![1]!;
    expect(m.html).toContain(`http://bo.test/reset-password?token=${encodeURIComponent(token)}`);
    expect(await env.handle.db.selectFrom('account_tokens').select('purpose').where('token_hash', '=', sha256(token)).executeTakeFirst()).toEqual({ purpose: 'reset_password' });
    await env.handle.db.updateTable('users').set({ email_verified_at: new Date() }).where('id', '=', id).execute();
    await handler({ user_id: id, purpose: 'verify_email' }, ctx);
    await Bun.sleep(100);
    expect(smtp.messages(email)).toHaveLength(1);
    await expect(createAccountMailHandler(null)({ user_id: id, purpose: 'reset_password' }, ctx)).rejects.toThrow('no SMTP_URL');
    await env.handle.db.deleteFrom('account_tokens').where('user_id', '=', id).execute();
    await env.handle.db.deleteFrom('users').where('id', '=', id).execute();
  });
});
