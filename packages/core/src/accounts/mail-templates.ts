import type { MailMessage } from '@pos/providers/mail/mailer';

/** Account mails, each in plain text and HTML. Values are HTML-escaped in the HTML part. */
export type AccountMail =
  | { template: 'verify-email'; name: string; link: string; token: string }
  | { template: 'reset-password'; name: string; link: string; token: string }
  | { template: 'sign-in-code'; name: string; code: string; minutes: number };

/** A reset removes every passkey of the account (one may have been added by a stolen session): the owner is told beforehand. */
const PASSKEYS_REMOVED = 'Choosing a new password also removes your passkeys: add them again once signed in.';

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function html(title: string, paragraphs: string[]): string {
  return `<!doctype html><html><body style="font-family:sans-serif"><h1>${esc(title)}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('')}</body></html>`;
}

export function renderAccountMail(to: string, m: AccountMail): MailMessage {
  switch (m.template) {
    case 'verify-email':
      return {
        to,
        subject: 'Verify your e-mail address',
        text: `Hello ${m.name},\n\nConfirm your e-mail address by opening this link within 24 hours:\n${m.link}\n\nVerification token: ${m.token}\n`,
        html: html('Verify your e-mail address', [`Hello ${esc(m.name)},`, `<a href="${esc(m.link)}">Confirm your e-mail address</a> within 24 hours.`, `Verification token: <code>${esc(m.token)}</code>`]),
      };
    case 'reset-password':
      return {
        to,
        subject: 'Reset your password',
        text: `Hello ${m.name},\n\nChoose a new password by opening this link within 60 minutes:\n${m.link}\n\nReset token: ${m.token}\n\n${PASSKEYS_REMOVED}\n\nIf you did not ask for this, ignore this mail.\n`,
        html: html('Reset your password', [`Hello ${esc(m.name)},`, `<a href="${esc(m.link)}">Choose a new password</a> within 60 minutes.`, `Reset token: <code>${esc(m.token)}</code>`, PASSKEYS_REMOVED, 'If you did not ask for this, ignore this mail.']),
      };
    case 'sign-in-code':
      return {
        to,
        subject: `Your sign-in code: ${m.code}`,
        text: `Hello ${m.name},\n\nYour sign-in code is ${m.code}. It expires in ${m.minutes} minutes.\n`,
        html: html('Your sign-in code', [`Hello ${esc(m.name)},`, `Your sign-in code is <strong>${esc(m.code)}</strong>. It expires in ${m.minutes} minutes.`]),
      };
  }
}
