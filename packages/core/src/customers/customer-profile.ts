import { isUuid } from '@pos/domain/ids';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { contactFlags, contactTaken, normaliseEmail, normalisePhone, writingContacts } from './contacts.ts';
import type { CustomerRow } from './customers.ts';
import { addTimelineEvent } from './timeline.ts';

/** The signed-in customer's row; a token whose customer was deleted (privacy erasure) is no longer valid (401). */
export async function signedInCustomer(tdb: TenantDb, customerId: string): Promise<CustomerRow> {
  // A subject that is no customer id at all (a token signed for something else) is no customer either.
  const c = isUuid(customerId) ? await tdb.selectFrom('customers').selectAll().where('id', '=', customerId).executeTakeFirst() : undefined;
  if (!c) throw errors.invalidToken();
  return c;
}

export interface PersonalInfoInput {
  readonly name?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
  readonly marketing_consent?: boolean;
}

/**
 * `POST /customer/personal-info`: the fields given (phone numbers read in the merchant's first
 * location's country). An e-mail or phone another customer of the merchant holds is 422 on that field;
 * a customer keeps a way to log in: not both contacts removed when no identity provider is bound.
 *
 * That 422 tells whether someone is a customer of the merchant, so a request giving a contact other than
 * the customer's own calls `limitContactChange` first (the route's throttle, 429): every such request
 * counts, taken or not, before anything is looked up.
 */
export async function updatePersonalInfo(
  tdb: TenantDb,
  c: CustomerRow,
  body: PersonalInfoInput,
  now: Date,
  limitContactChange: () => Promise<void> = async () => {},
): Promise<CustomerRow> {
  const country = (await tdb.selectFrom('locations').select('country').orderBy('created_at').orderBy('id').executeTakeFirst())?.country ?? null;
  const patch: { name?: string | null; email?: string | null; phone?: string | null; marketing_consent?: boolean; updated_at: Date } = { updated_at: now };
  if (body.name !== undefined) patch.name = body.name?.trim() || null;
  if (body.email !== undefined) patch.email = body.email ? normaliseEmail(body.email) : null;
  if (body.phone !== undefined) patch.phone = body.phone ? normalisePhone(body.phone, country) : null;
  if (body.marketing_consent !== undefined) patch.marketing_consent = body.marketing_consent;
  if ((['email', 'phone'] as const).some((f) => patch[f] && patch[f] !== c[f])) await limitContactChange();
  for (const f of ['email', 'phone'] as const) {
    const v = patch[f];
    if (v && (await tdb.selectFrom('customers').select('id').where(f, '=', v).where('id', '!=', c.id).executeTakeFirst())) throw contactTaken(f);
  }
  const email = patch.email !== undefined ? patch.email : c.email;
  const phone = patch.phone !== undefined ? patch.phone : c.phone;
  if (!email && !phone && !c.idp_subject) throw errors.field('phone', 'A phone number or an email address is required.');
  // Two customers taking the same contact at once both pass the check: the unique index stops the second (422, never a 500).
  return writingContacts(() =>
    tdb.transaction().execute(async (tx) => {
      // The row as it was (locked): a consent change is recorded once, against the value it replaced.
      const before = await tx.selectFrom('customers').select('marketing_consent').where('id', '=', c.id).forUpdate().executeTakeFirst();
      // Erased (privacy) while this request ran: the token's customer is gone, as `signedInCustomer` says.
      if (!before) throw errors.invalidToken();
      const updated = await tx.updateTable('customers').set({ ...patch, ...contactFlags(patch) }).where('id', '=', c.id).returningAll().executeTakeFirstOrThrow();
      // Consent given or withdrawn in the app is on the timeline, as the back office's change is.
      if (patch.marketing_consent !== undefined && patch.marketing_consent !== before.marketing_consent) {
        await addTimelineEvent(tx, c.id, patch.marketing_consent ? 'marketing_opted_in' : 'marketing_opted_out', null, { by: 'customer' }, now);
      }
      return updated;
    }),
  );
}

/** Of the order ids a guest names (UUIDs), those of guest orders: never a customer account's order. */
export async function guestOrderIds(tdb: TenantDb, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  return (await tdb.selectFrom('transactions').select('id').where('id', 'in', ids).where('customer_id', 'is', null).execute()).map((r) => r.id);
}
