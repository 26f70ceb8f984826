import type { notificationSendJob } from '@pos/kernel/queues/index';
import { renderNotification } from '../notifications/templates.ts';
import type { JobHandler } from './job-handler.ts';

/** Renders the template and hands it to the configured driver (the dev-log driver for now). */
export const handleNotificationSend: JobHandler<typeof notificationSendJob> = async (payload, ctx) => {
  await ctx.notifications.send(renderNotification(payload));
};
