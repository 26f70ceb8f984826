import type { Transporter } from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The one outgoing-mail client: SMTP through nodemailer, configured from `SMTP_URL` and `MAIL_FROM`. */
export interface Mailer {
  send(m: MailMessage): Promise<void>;
  close(): void;
}

export class SmtpMailer implements Mailer {
  #transport: Promise<Transporter> | undefined;
  constructor(private readonly smtpUrl: string, readonly from: string) {}
  /** nodemailer is loaded with the first mail, not at every process start. */
  #get(): Promise<Transporter> {
    // Bounded timeouts: a stalled relay must not hold a request open for minutes.
    this.#transport ??= import('nodemailer').then((n) => n.default.createTransport(this.smtpUrl, { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 } as never));
    return this.#transport;
  }
  async send(m: MailMessage): Promise<void> {
    await (await this.#get()).sendMail({ from: this.from, to: m.to, subject: m.subject, text: m.text, html: m.html });
  }
  close(): void {
    void this.#transport?.then((t) => t.close());
  }
}

/** `null` when SMTP_URL is unset: routes that must mail then answer 503 instead of pretending. */
export function mailerFromEnv(env: { SMTP_URL?: string; MAIL_FROM?: string }): Mailer | null {
  if (!env.SMTP_URL) return null;
  return new SmtpMailer(env.SMTP_URL, env.MAIL_FROM ?? 'Ordering <no-reply@localhost>');
}
