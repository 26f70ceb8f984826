import type { accountMailJob } from '@pos/kernel/queues/index';
import { deliverAccountMail, type AccountMailing } from '@pos/core/accounts/sign-up';
import type { JobHandler } from './job-handler.ts';

/** Mails a back-office account token (`account.mail`); `mailing` is null when the worker has no SMTP (the job fails and is retried). */
export function createAccountMailHandler(mailing: Omit<AccountMailing, 'log'> | null): JobHandler<typeof accountMailJob> {
  return async (payload, ctx) => {
    if (!mailing?.mailer) throw new Error('account.mail: the worker has no SMTP_URL');
    await deliverAccountMail({ ...mailing, log: ctx.log }, payload, ctx.clock.now());
  };
}
