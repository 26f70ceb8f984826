import { appEnv, type AppEnv, type Logger } from '@pos/kernel';
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
 * The development driver: sends nothing, writes one structured log line. In `local` and `test` the line is
 * `notification sent` with the recipient and the rendered subject (where a developer reads an activation
 * code); anywhere else, or when `env` is not given, only the channel and template (`notification not sent
 * (dev-log driver)`): a rendered subject carries activation codes, invitation tokens and receipts, and a
 * log is no place for them.
 */
export function devLogDriver(log: Logger, env?: AppEnv): NotificationDriver {
  const showContent = env === 'local' || env === 'test';
  return {
    name: 'dev-log',
    async send(n) {
      if (showContent) log.info('notification sent', { driver: 'dev-log', channel: n.channel, to: n.to, template: n.template, subject: n.subject });
      else log.info('notification not sent (dev-log driver)', { driver: 'dev-log', channel: n.channel, template: n.template });
    },
  };
}

/** The settings that give `notification.send` its transports (`SMTP_URL`; `SMS_BASE_URL` with `SMS_API_KEY`). */
export const NOTIFICATION_TRANSPORT_SETTINGS = ['SMTP_URL', 'SMS_BASE_URL', 'SMS_API_KEY'] as const;

/**
 * The driver of a production worker without any transport: every notification fails for good at once
 * (`UnrecoverableJobError`: recorded in `job_failures`), naming the settings to set; nothing is logged as sent.
 */
export function undeliverableDriver(): NotificationDriver {
  const settings = NOTIFICATION_TRANSPORT_SETTINGS.join(', ');
  return {
    name: 'undeliverable',
    async send(n) {
      throw new UnrecoverableJobError(`notification.send: no mail or SMS transport is configured (${settings}); the ${n.channel} ${n.template} was not sent`);
    },
  };
}

/**
 * The worker's notification driver from its settings: `messagingDriver` once SMTP or SMS is configured;
 * without either, the dev-log driver in `local` and `test` (APP_ENV, `local` when unset), and in production
 * `undeliverableDriver` and one warning now naming the missing settings.
 */
export function notificationDriverFromEnv(
  config: { APP_ENV?: AppEnv; SMTP_URL?: string; SMS_BASE_URL?: string; SMS_API_KEY?: string },
  transports: { mailer: Mailer | null; sms: SmsClient | null },
  log: Logger,
): NotificationDriver {
  if (transports.mailer || transports.sms) return messagingDriver(transports);
  const env = appEnv(config);
  if (env === 'local' || env === 'test') return devLogDriver(log, env);
  log.warn('notifications cannot be sent: no mail or SMS transport is configured; notification.send jobs fail', {
    missing: NOTIFICATION_TRANSPORT_SETTINGS.filter((k) => !config[k]),
  });
  return undeliverableDriver();
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
