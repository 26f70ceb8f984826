import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { contactFlags, type Contact } from './contacts.ts';
import { addTimelineEvent } from './timeline.ts';

export type CustomerRow = Selectable<TenantTables['customers']>;

/** The customer with this e-mail or phone (phone first: it is what a kiosk asks for), or null. */
export async function findCustomerByContact(db: TenantDb | TenantTx, c: Contact): Promise<CustomerRow | null> {
  if (c.phone) {
    const byPhone = await db.selectFrom('customers').selectAll().where('phone', '=', c.phone).executeTakeFirst();
    if (byPhone) return byPhone;
  }
  if (c.email) {
    const byEmail = await db.selectFrom('customers').selectAll().where('email', '=', c.email).executeTakeFirst();
    if (byEmail) return byEmail;
  }
  return null;
}

/**
 * Finds the customer by contact or enrols a new one (with a loyalty account), in the caller's
 * transaction. A name is added when the customer had none. With `addContacts` (a source the merchant
 * vouches for: their register's customer list) a contact the found customer lacks is added when no
 * other customer holds it. A kiosk does not: whoever stands at it could add their own e-mail to a
 * stranger's account found by phone, then open that account in the app by proving the e-mail (an
 * account nobody has signed in to opens to a proven contact). Two kiosks enrolling the same phone at
 * once: the unique index makes the loser fail, and the caller's retry finds the winner.
 */
export async function findOrEnrolCustomer(tx: TenantTx, c: Contact, name: string | null, now: Date, source: string, opts: { addContacts: boolean }): Promise<{ customer: CustomerRow; created: boolean }> {
  const found = await findCustomerByContact(tx, c);
  if (found) {
    const patch: { email?: string; phone?: string; name?: string; updated_at?: Date } = {};
    if (opts.addContacts && c.email && !found.email && !(await tx.selectFrom('customers').select('id').where('email', '=', c.email).executeTakeFirst())) patch.email = c.email;
    if (opts.addContacts && c.phone && !found.phone && !(await tx.selectFrom('customers').select('id').where('phone', '=', c.phone).executeTakeFirst())) patch.phone = c.phone;
    if (name && !found.name) patch.name = name;
    if (Object.keys(patch).length === 0) return { customer: found, created: false };
    patch.updated_at = now;
    const updated = await tx.updateTable('customers').set({ ...patch, ...contactFlags(patch) }).where('id', '=', found.id).returningAll().executeTakeFirstOrThrow();
    return { customer: updated, created: false };
  }
  const customer = await tx
    .insertInto('customers')
    .values({ id: Bun.randomUUIDv7(), name, email: c.email, phone: c.phone, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx.insertInto('loyalty_accounts').values({ customer_id: customer.id, updated_at: now }).execute();
  await addTimelineEvent(tx, customer.id, 'enrolled', null, { source }, now);
  return { customer, created: true };
}

export async function getCustomer(db: TenantDb | TenantTx, id: string): Promise<CustomerRow> {
  const c = await db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
  if (!c) throw errors.notFound('customer');
  return c;
}
