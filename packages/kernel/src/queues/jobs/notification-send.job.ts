import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const NOTIFICATION_SEND_JOB = 'notification.send';

/** One e-mail or SMS from a named template (activation codes, ...); `data` fills the template. */
export const notificationSendJob = defineJob({
  name: NOTIFICATION_SEND_JOB,
  queue: QUEUES.notifications,
  version: 1,
  payload: Type.Object(
    {
      channel: Type.Union([Type.Literal('email'), Type.Literal('sms')]),
      to: Type.String({ minLength: 1, maxLength: 320 }),
      template: Type.String({ minLength: 1, maxLength: 100 }),
      data: Type.Record(Type.String(), Type.Unknown()),
    },
    { additionalProperties: false },
  ),
  retries: 5,
  backoffMs: 2000,
});
