import type { Logger } from '@pos/kernel';
import type { RenderedNotification } from './templates.ts';

/** Delivers rendered notifications (a mail/SMS provider in production, a log line in development). */
export interface NotificationDriver {
  readonly name: string;
  send(n: RenderedNotification): Promise<void>;
}

/**
 * The development driver: sends nothing, writes one structured log line `notification sent` with
 * the rendered subject (where a developer reads an activation code).
 */
export function devLogDriver(log: Logger): NotificationDriver {
  return {
    name: 'dev-log',
    async send(n) {
      log.info('notification sent', { driver: 'dev-log', channel: n.channel, to: n.to, template: n.template, subject: n.subject });
    },
  };
}
