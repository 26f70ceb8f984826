import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const ACCOUNT_MAIL_JOB = 'account.mail';

/**
 * A back-office account mail (`resend-verification`, `forget-password`): the worker issues the token and
 * mails it, so the request answers alike for known and unknown addresses, and no token is ever written
 * to the outbox in clear (the payload names the user and the purpose only).
 */
export const accountMailJob = defineJob({
  name: ACCOUNT_MAIL_JOB,
  queue: QUEUES.notifications,
  version: 1,
  payload: Type.Object(
    {
      user_id: Type.String({ minLength: 1, maxLength: 64 }),
      purpose: Type.Union([Type.Literal('verify_email'), Type.Literal('reset_password')]),
    },
    { additionalProperties: false },
  ),
  retries: 5,
  backoffMs: 2000,
});
