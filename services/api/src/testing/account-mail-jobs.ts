import { deliverAccountMail } from '@pos/core/accounts/sign-up';
import { ACCOUNT_MAIL_JOB, type accountMailJob, type JobPayload } from '@pos/kernel/queues/index';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
import type { TestApi } from './harness.ts';

/**
 * Runs the `account.mail` jobs waiting in the outbox as the worker's handler does (API tests start no
 * worker): takes the rows out and delivers each. Answers how many ran.
 */
export async function runAccountMailJobs(api: TestApi): Promise<number> {
  const rows = await api.deps.db.deleteFrom('outbox').where('job', '=', ACCOUNT_MAIL_JOB).where('relayed_at', 'is', null).returning(['payload']).execute();
  const mailing = { db: api.deps.db, mailer: mailerFromEnv(api.deps.config), appUrl: api.deps.config.APP_URL ?? 'http://localhost:3000', log: api.deps.log };
  for (const r of rows) {
    const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as JobPayload<typeof accountMailJob>;
    await deliverAccountMail(mailing, payload, new Date());
  }
  return rows.length;
}
