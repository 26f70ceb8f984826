import type { Logger } from '@pos/kernel';
import type { Mailer } from '@pos/providers/mail/mailer';
import type { SmsClient } from '@pos/providers/sms/sms-client';
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

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The production driver: e-mail through the SMTP mailer (`SMTP_URL`, as the account mails), SMS through
 * the SMS provider (`SMS_BASE_URL`, `SMS_API_KEY`; the text is the body, which stands alone). A channel
 * whose transport is not configured throws, so the job fails visibly and is retried, instead of a log
 * line reporting a receipt, an invitation or an activation code as sent.
 */
export function messagingDriver(transports: { mailer: Mailer | null; sms: SmsClient | null }): NotificationDriver {
  return {
    name: 'messaging',
    async send(n) {
      if (n.channel === 'email') {
        if (!transports.mailer) throw new Error('notification.send: the worker has no SMTP_URL for e-mail');
        await transports.mailer.send({ to: n.to, subject: n.subject, text: n.body, html: `<!doctype html><html><body style="font-family:sans-serif">${n.body.split('\n').map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</body></html>` });
        return;
      }
      if (!transports.sms) throw new Error('notification.send: the worker has no SMS provider (SMS_BASE_URL, SMS_API_KEY)');
      await transports.sms.send(n.to, n.body);
    },
  };
}
