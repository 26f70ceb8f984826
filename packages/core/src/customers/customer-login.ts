import { createHash } from 'node:crypto';
import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { SmsClient } from '@pos/providers/sms/sms-client';
import type { MailApiClient } from '@pos/providers/mail-api/mail-api-client';
import type { ChallengeClient } from '@pos/providers/challenge/challenge-client';
import { IdTokenError, type IdTokenVerifier, type VerifiedIdentity } from '@pos/providers/idp/id-token-verifier';
import { normaliseEmail, normalisePhone } from './contacts.ts';
import type { CustomerRow } from './customers.ts';
import { accountForProvenContact, enrol, signInTransaction } from './contact-sign-in.ts';
import { consumeCustomerOtp, issueCustomerOtp, type OtpChannel } from './customer-otp.ts';
import { addTimelineEvent } from './timeline.ts';
import { mailboxKey } from '../shared/mailbox.ts';

/** The providers customer login talks to; a null client means the channel is not configured. */
export interface CustomerLoginProviders {
  sms: SmsClient | null;
  mail: MailApiClient | null;
  /** Null when the challenge secret is empty: the check passes through (spec 1 section 7 rule 4). */
  challenge: ChallengeClient | null;
  /** The back-office ID-token verifier, shared (one OIDC verifier in the codebase). */
  idp: IdTokenVerifier | null;
  /** Key of the code hashes. */
  otpKey: string;
}

export interface MerchantTenant {
  merchant: { id: string; slug: string; name: string; tenant_database: string };
  db: TenantDb;
}

/** The merchant a guest names by its slug, with its tenant store; 404 `merchant` otherwise. */
export async function merchantBySlug(central: CentralDb, slug: string): Promise<MerchantTenant> {
  const merchant = await central.selectFrom('merchants').select(['id', 'slug', 'name', 'tenant_database']).where('slug', '=', slug).executeTakeFirst();
  if (!merchant) throw errors.notFound('merchant');
  return { merchant, db: bindTenant(central, merchant.tenant_database) };
}

/**
 * The throttle subject of a code destination: a hash, so Redis keys hold no phone number or address;
 * an e-mail address counts as its inbox (`mailboxKey`: `name+1@`, `name+2@` are one inbox).
 */
export function otpDestinationKey(destination: string): string {
  return mailboxKey(destination).slice(0, 32);
}

/** The merchant's name as a code message carries it: anyone registering a merchant chooses it (255 characters). */
function senderName(name: string): string {
  const n = name.replace(/\s+/g, ' ').trim();
  return n.length > 40 ? `${n.slice(0, 39)}…` : n;
}

/** The country national phone numbers are read in: the merchant's first location's. */
async function phoneCountry(db: TenantDb): Promise<string | null> {
  const l = await db.selectFrom('locations').select('country').orderBy('created_at').orderBy('id').executeTakeFirst();
  return l?.country ?? null;
}

/** Exactly one of phone and email, normalised: the destination of the code. */
export async function readDestination(db: TenantDb, input: { phone?: string; email?: string }): Promise<{ channel: OtpChannel; destination: string }> {
  if (input.phone && input.email) throw errors.field('phone', 'Give either a phone number or an email address, not both.');
  if (input.phone) return { channel: 'sms', destination: normalisePhone(input.phone, await phoneCountry(db)) };
  if (input.email) return { channel: 'email', destination: normaliseEmail(input.email) };
  throw errors.field('phone', 'A phone number or an email address is required.');
}

/** Bot challenge of `send-otp`: 403 `CAPTCHA_REQUIRED` without a response, `CAPTCHA_INVALID` when refused or unreachable. */
export async function checkChallenge(p: CustomerLoginProviders, response: string | undefined, remoteIp: string | null): Promise<void> {
  if (!p.challenge) return;
  if (!response) throw errors.forbidden('A bot challenge response is required.', { extra: { code: 'CAPTCHA_REQUIRED' } });
  if (!(await p.challenge.verify(response, remoteIp))) throw errors.forbidden('The bot challenge response is invalid.', { extra: { code: 'CAPTCHA_INVALID' } });
}

/**
 * `POST /customer/send-otp`: stores a hashed code (it replaces the destination's earlier codes) and
 * sends it by SMS or e-mail. `limitSends` counts the send against the destination first (429 beyond).
 */
export async function sendCustomerOtp(
  p: CustomerLoginProviders,
  t: MerchantTenant,
  input: { phone?: string; email?: string },
  now: Date,
  limitSends: (destination: string) => Promise<void> = async () => {},
): Promise<{ channel: OtpChannel; expires_at: Date }> {
  const { channel, destination } = await readDestination(t.db, input);
  const client = channel === 'sms' ? p.sms : p.mail;
  if (!client) throw errors.unavailable(channel === 'sms' ? 'Sending codes by SMS is not configured.' : 'Sending codes by email is not configured.');
  await limitSends(destination);
  const { id, code, expires_at } = await issueCustomerOtp(t.db, p.otpKey, channel, destination, now);
  const name = senderName(t.merchant.name);
  const text = `${code} is your ${name} login code. It expires in 15 minutes.`;
  try {
    if (channel === 'sms') await p.sms!.send(destination, text);
    else await p.mail!.send({ to: destination, subject: `Your ${name} login code`, text });
  } catch {
    // The code was never delivered: it must not stay usable.
    await t.db.deleteFrom('customer_otps').where('id', '=', id).execute();
    throw errors.unavailable('The code could not be sent. Please try again later.');
  }
  return { channel, expires_at };
}

/**
 * `POST /customer/login`: spends the code and answers the account the proven contact identifies
 * (`accountForProvenContact`; enrolled on first login). The code is spent in the same transaction, so a
 * request that fails (a lost enrolment race is retried) leaves it live.
 */
export async function loginWithOtp(p: CustomerLoginProviders, t: MerchantTenant, input: { phone?: string; email?: string; code: string }, now: Date): Promise<{ customer: CustomerRow; created: boolean }> {
  const { channel, destination } = await readDestination(t.db, input);
  const r = await signInTransaction(t.db, async (tx) => {
    await consumeCustomerOtp(tx, p.otpKey, destination, input.code, now);
    return accountForProvenContact(tx, { field: channel === 'sms' ? 'phone' : 'email', value: destination }, null, now);
  });
  await addTimelineEvent(t.db, r.customer.id, 'logged_in', null, { method: channel }, now);
  return r;
}

/**
 * `POST /customer/login/idp`: a verified ID token logs in the customer bound to its subject, else the
 * account its verified e-mail identifies (then bound; `accountForProvenContact`), else a new customer.
 * An unverified e-mail is not used.
 */
export const CUSTOMER_IDP_REPLAYED = 'This identity credential has already been used.';

/**
 * `spendOnce(key, until)`: true the first time a credential's key is spent (kept until the credential
 * expires). The body carries no nonce, so without it one ID token signed in again and again, at every merchant.
 */
export type SpendCredential = (key: string, until: Date) => Promise<boolean>;

export async function loginWithIdp(
  p: CustomerLoginProviders,
  t: MerchantTenant,
  credential: string,
  now: Date,
  spendOnce: SpendCredential,
): Promise<{ customer: CustomerRow; created: boolean }> {
  if (!p.idp) throw errors.unavailable('Identity-provider login is not configured.');
  let id: VerifiedIdentity;
  try {
    // Spec 1's `/customer/login/idp` body carries no nonce: null skips that check.
    id = await p.idp.verify(credential, null, now);
  } catch (e) {
    if (e instanceof IdTokenError && e.reason === 'unavailable') throw errors.unavailable('The identity provider is unreachable.');
    if (e instanceof IdTokenError) throw errors.field('credential', 'The credential is invalid or has expired.');
    throw e;
  }
  // The signed part (header and claims) names the token: a re-signed copy (ECDSA signatures are malleable) is the same token.
  if (!(await spendOnce(createHash('sha256').update(credential.split('.').slice(0, 2).join('.')).digest('hex'), id.expiresAt))) {
    throw errors.field('credential', CUSTOMER_IDP_REPLAYED);
  }
  const subject = `${id.issuer}|${id.subject}`;
  const email = id.email && id.emailVerified ? normaliseEmail(id.email, 'credential') : null;
  const r = await signInTransaction(t.db, async (tx) => {
    const bound = await tx.selectFrom('customers').selectAll().where('idp_subject', '=', subject).executeTakeFirst();
    if (bound) return { customer: bound, created: false };
    if (!email) return { customer: await enrol(tx, { idp_subject: subject }, id.name, now), created: true };
    const found = await accountForProvenContact(tx, { field: 'email', value: email }, id.name, now);
    const customer = await tx.updateTable('customers').set({ idp_subject: subject, updated_at: now }).where('id', '=', found.customer.id).returningAll().executeTakeFirstOrThrow();
    return { customer, created: found.created };
  });
  await addTimelineEvent(t.db, r.customer.id, 'logged_in', null, { method: 'idp' }, now);
  return r;
}
