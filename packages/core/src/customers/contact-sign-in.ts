import { isUniqueViolation, type TenantDb, type TenantTx } from '@pos/db';
import type { CustomerRow } from './customers.ts';
import { addTimelineEvent } from './timeline.ts';

/** A contact a sign-in proved: a code received by SMS or e-mail, or an identity provider's verified e-mail. */
export type ProvenContact = { readonly field: 'email' | 'phone'; readonly value: string };

type Standing = Pick<CustomerRow, 'email_verified' | 'phone_verified' | 'idp_subject' | 'signed_in_at'>;

/**
 * Whether the account holding a proven contact is the signer's: the contact is verified on it, or the
 * account has no proof at all (no verified contact, no identity-provider subject, never signed into:
 * made by a kiosk or by staff from that contact, which the sign-in now proves). Otherwise the contact
 * was only typed in by the account's owner, and it may be somebody else's (an account pre-hijack). An
 * account once signed into keeps its owner even after its proven contacts were removed: their token
 * lives on, so a contact they typed must not open the account to anyone else.
 */
export function contactIdentifies(account: Standing, field: ProvenContact['field']): boolean {
  const verified = field === 'email' ? account.email_verified : account.phone_verified;
  return verified || (!account.email_verified && !account.phone_verified && !account.idp_subject && !account.signed_in_at);
}

/**
 * The signer's account for a proven contact, in the caller's transaction: the account that contact
 * identifies (the contact is then marked verified), else a new account holding it, verified. A holder
 * it does not identify loses the contact first (it was self-asserted, and the unique index allows one).
 */
export async function accountForProvenContact(tx: TenantTx, c: ProvenContact, name: string | null, now: Date): Promise<{ customer: CustomerRow; created: boolean }> {
  const flag = c.field === 'email' ? 'email_verified' : 'phone_verified';
  const holder = await tx.selectFrom('customers').selectAll().where(c.field, '=', c.value).forUpdate().executeTakeFirst();
  if (holder && contactIdentifies(holder, c.field)) {
    if (holder[flag] && (holder.name || !name)) return { customer: holder, created: false };
    const customer = await tx
      .updateTable('customers')
      .set({ [flag]: true, ...(name && !holder.name ? { name } : {}), signed_in_at: holder.signed_in_at ?? now, updated_at: now })
      .where('id', '=', holder.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { customer, created: false };
  }
  if (holder) {
    await tx.updateTable('customers').set({ [c.field]: null, [flag]: false, updated_at: now }).where('id', '=', holder.id).execute();
    await addTimelineEvent(tx, holder.id, 'contact_removed', null, { field: c.field, reason: 'proven_by_another_sign_in' }, now);
  }
  return { customer: await enrol(tx, { [c.field]: c.value, [flag]: true }, name, now), created: true };
}

/** A new customer (with its loyalty account) enrolled by a sign-in of the customer app. */
export async function enrol(tx: TenantTx, contact: { email?: string; phone?: string; email_verified?: boolean; phone_verified?: boolean; idp_subject?: string }, name: string | null, now: Date): Promise<CustomerRow> {
  const customer = await tx
    .insertInto('customers')
    .values({ id: Bun.randomUUIDv7(), name, email: null, phone: null, ...contact, signed_in_at: now, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.insertInto('loyalty_accounts').values({ customer_id: customer.id, updated_at: now }).execute();
  await addTimelineEvent(tx, customer.id, 'enrolled', null, { source: 'customer_app' }, now);
  return customer;
}

const SIGN_IN_ATTEMPTS = 3;

/**
 * Runs a sign-in's find-or-enrol transaction, again when it lost a race on a unique index of customers
 * (two first sign-ins of one new contact or subject at once): the next attempt finds the winner's row.
 */
export async function signInTransaction<T>(db: TenantDb, work: (tx: TenantTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (e) {
      if (attempt >= SIGN_IN_ATTEMPTS || !isUniqueViolation(e)) throw e;
    }
  }
}
