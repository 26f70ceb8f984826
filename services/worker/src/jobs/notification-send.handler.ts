import type { notificationSendJob } from '@pos/kernel/queues/index';
import { renderNotification } from '../notifications/templates.ts';
import type { JobHandler } from './job-handler.ts';

/** Renders the template and hands it to the configured driver (`messagingDriver` with SMTP or SMS configured, else the dev-log driver). */
export const handleNotificationSend: JobHandler<typeof notificationSendJob> = async (payload, ctx) => {
  await ctx.notifications.send(renderNotification(payload));
};
