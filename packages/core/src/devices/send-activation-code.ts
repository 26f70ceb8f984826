import { enqueueOutbox } from '@pos/db';
import { errors } from '@pos/kernel';
import { jobMessage } from '@pos/kernel/queues/job-definition';
import { notificationSendJob } from '@pos/kernel/queues/jobs/notification-send.job';
import { logActivity } from '../activity/log-activity.ts';
import { normalisePhone } from '../customers/contacts.ts';
import { findDevice, inMerchantTx, requireActivationCodeAccess, type BackofficeScope } from './device-records.ts';

export interface SendActivationCodeInput {
  email?: string;
  phone?: string;
}

export const ACTIVATION_CODE_TEMPLATE = 'device-activation-code';
export const USED_ACTIVATION_CODE = 'The activation code has already been used.';

/**
 * `POST /back-office/devices/{id}/send-activation-code`: sends the device's current (unused) code by
 * e-mail or SMS. The notification is written to the outbox in the same transaction as the activity
 * entry; the worker relays it to the `notifications` queue. Exactly one of email and phone. The caller
 * needs VIEW_DEVICES or CREATE_DEVICES at the device's location, as for new-activation-code: the code
 * goes to any address the caller names. A phone is sent in E.164: a national number is read in the
 * country of the device's location (as customer contacts are); one that is no valid number is 422.
 */
export async function sendActivationCode(
  scope: BackofficeScope,
  deviceId: string,
  input: SendActivationCodeInput,
  /** Called with the normalised destination once the request is valid, before anything is queued (the route's throttles). */
  beforeSend: (destination: { channel: 'email' | 'sms'; to: string }) => Promise<void> = async () => undefined,
): Promise<void> {
  // The device first: another merchant's id is a 404 whatever the body says.
  const d = await findDevice(scope.tdb, deviceId);
  requireActivationCodeAccess(scope.access, d.location_id);
  const email = input.email?.trim();
  const rawPhone = input.phone?.trim();
  if (!email && !rawPhone) throw errors.field('email', 'The email field is required when phone is not present.');
  if (email && rawPhone) throw errors.field('email', 'Provide either an email address or a phone number, not both.');
  const phone = rawPhone ? normalisePhone(rawPhone, await locationCountry(scope, d.location_id)) : undefined;
  const channel = email ? ('email' as const) : ('sms' as const);
  // A used code is refused before the throttles count: a 422 counts nothing (it would use up the
  // recipient's and the merchant's allowance for sends that never happen). Read again under the lock.
  const registry = (db: BackofficeScope['db']) => db.selectFrom('device_registry').select(['activation_code', 'activation_code_used_at']).where('id', '=', d.id).where('merchant_id', '=', scope.merchant.id);
  const unused = (reg: { activation_code: string | null; activation_code_used_at: Date | null } | undefined) => {
    if (!reg?.activation_code || reg.activation_code_used_at) throw errors.field('activation_code', USED_ACTIVATION_CODE);
    return reg.activation_code;
  };
  unused(await registry(scope.db).executeTakeFirst());
  await beforeSend({ channel, to: (email ?? phone)! });
  await inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    const reg = { activation_code: unused(await registry(central).forUpdate().executeTakeFirst()) };
    await enqueueOutbox(
      central,
      jobMessage(notificationSendJob, { channel, to: (email ?? phone)!, template: ACTIVATION_CODE_TEMPLATE, data: { code: reg.activation_code, device_name: d.name } }),
    );
    await logActivity(tenant, { userId: scope.userId, action: 'sent_activation_code', subject: 'device', subjectId: d.id, properties: { channel } });
  });
}

async function locationCountry(scope: BackofficeScope, locationId: string): Promise<string | null> {
  return (await scope.tdb.selectFrom('locations').select('country').where('id', '=', locationId).executeTakeFirst())?.country ?? null;
}
