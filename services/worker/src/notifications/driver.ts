import type { Logger } from '@pos/kernel';
import type { Mailer } from '@pos/providers/mail/mailer';
import { MessagingError, type SmsClient } from '@pos/providers/sms/sms-client';
import { UnrecoverableJobError } from '../jobs/job-handler.ts';
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

/** A number typed with spaces, dashes or parentheses (`+32 (470) 12-34 56`) as the provider takes it (`+32470123456`); others as typed. */
const e164 = (to: string) => (to.trim().startsWith('+') ? `+${to.trim().slice(1).replace(/[\s()-]/g, '')}` : to.trim());

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
        await transports.mailer
          .send({ to: n.to, subject: n.subject, text: n.body, html: `<!doctype html><html><body style="font-family:sans-serif">${n.body.split('\n').map((l) => `<p>${escapeHtml(l)}</p>`).join('')}</body></html>` })
          .catch((e: unknown) => {
            // A permanent SMTP refusal (5xx: no such mailbox, address refused) is the same on every retry.
            const code = (e as { responseCode?: unknown } | null)?.responseCode;
            if (typeof code === 'number' && code >= 500 && code < 600) throw new UnrecoverableJobError(`notification.send: the mail server refused the message (${code})`);
            throw e;
          });
        return;
      }
      if (!transports.sms) throw new Error('notification.send: the worker has no SMS provider (SMS_BASE_URL, SMS_API_KEY)');
      try {
        await transports.sms.send(e164(n.to), n.body);
      } catch (e) {
        // The provider refusing this message (a number it cannot text) refuses it again on every retry.
        if (e instanceof MessagingError && e.status !== undefined && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 429)
          throw new UnrecoverableJobError(`notification.send: the SMS provider refused the message (answered ${e.status})`);
        throw e;
      }
    },
  };
}
