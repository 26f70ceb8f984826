import { UnrecoverableJobError } from '../jobs/job-handler.ts';

/** A rendered notification: what a driver sends. */
export interface RenderedNotification {
  channel: 'email' | 'sms';
  to: string;
  template: string;
  subject: string;
  body: string;
}

interface Template {
  subject: string;
  body: string;
}

/**
 * Notification templates by name. `{{key}}` is replaced by `data.key` (missing keys render empty).
 * Unknown template names fail the job, so a typo is seen in the failed set instead of sending nothing.
 */
export const TEMPLATES: Readonly<Record<string, Template>> = {
  'device-activation-code': {
    subject: 'Activation code for {{device_name}}: {{code}}',
    body: 'Open the app on {{device_name}} and enter the activation code {{code}}. The code works once.',
  },
  'team-invitation': {
    subject: 'You are invited to join {{merchant_name}}',
    body: 'You have been invited to the back office of {{merchant_name}}. Accept the invitation with this token within 7 days: {{invite_token}}',
  },
  'payment-receipt': {
    subject: 'Your receipt {{receipt_no}} (order {{order_no}})',
    body: 'Thank you for your order {{order_no}}.\n{{lines}}\nTotal: {{total}}\nReceipt {{receipt_no}}',
  },
  activation_code: {
    subject: 'Your activation code: {{code}}',
    body: 'Enter {{code}} to activate your account. The code expires in {{expires_in_minutes}} minutes.',
  },
};

/** Unrecoverable: a retry renders the same unknown name (the job fails once, visibly). */
export class UnknownTemplateError extends UnrecoverableJobError {
  constructor(readonly template: string) {
    super(`Unknown notification template: ${template}`);
    this.name = 'UnknownTemplateError';
  }
}

function fill(text: string, data: Readonly<Record<string, unknown>>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, key: string) => {
    const v = data[key];
    return v === undefined || v === null ? '' : String(v);
  });
}

export function renderNotification(
  msg: { channel: 'email' | 'sms'; to: string; template: string; data: Readonly<Record<string, unknown>> },
  templates: Readonly<Record<string, Template>> = TEMPLATES,
): RenderedNotification {
  const t = templates[msg.template];
  if (!t) throw new UnknownTemplateError(msg.template);
  return { channel: msg.channel, to: msg.to, template: msg.template, subject: fill(t.subject, msg.data), body: fill(t.body, msg.data) };
}
