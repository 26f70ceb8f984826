import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { contactFlags, contactTaken, normaliseEmail, normalisePhone, writingContacts } from './contacts.ts';
import { getCustomer } from './customers.ts';
import { addressView, customerView, lockCustomer } from './customer-views.ts';
import { addTimelineEvent } from './timeline.ts';

/** Who acts in the back office: the activity log's user. */
export interface BackofficeActor {
  userId: string;
}

export interface CustomerQuery {
  page?: number;
  per_page?: number;
  search?: string;
  marketing_consent?: 'true' | 'false';
}

async function country(db: TenantDb): Promise<string | null> {
  return (await db.selectFrom('locations').select('country').orderBy('created_at').orderBy('id').executeTakeFirst())?.country ?? null;
}

/** `GET /customers/datatable`: newest first; `search` matches name, e-mail or phone. Balances included. */
export async function customerDatatable(db: TenantDb, q: CustomerQuery) {
  const page = q.page ?? 1;
  const perPage = q.per_page ?? 25;
  let base = db.selectFrom('customers as c').leftJoin('loyalty_accounts as a', 'a.customer_id', 'c.id');
  if (q.search) {
    const like = `%${q.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    base = base.where((eb) => eb.or([eb('c.name', 'ilike', like), eb('c.email', 'ilike', like), eb('c.phone', 'ilike', like)]));
  }
  if (q.marketing_consent) base = base.where('c.marketing_consent', '=', q.marketing_consent === 'true');
  const total = Number((await base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const rows = await base.selectAll('c').select([sql<number>`coalesce(a.points, 0)`.as('points')]).orderBy('c.created_at', 'desc').orderBy('c.id', 'desc').limit(perPage).offset((page - 1) * perPage).execute();
  return { data: rows.map((r) => ({ ...customerView(r), points: Number(r.points) })), total, page, per_page: perPage };
}

export interface CustomerInput {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  marketing_consent?: boolean;
}

/** Normalised contact fields of an input, 422 on a contact another customer holds. */
async function contactPatch(db: TenantDb, input: CustomerInput, exceptId: string | null) {
  const patch: { name?: string | null; email?: string | null; phone?: string | null; marketing_consent?: boolean } = {};
  if (input.name !== undefined) patch.name = input.name?.trim() || null;
  if (input.email !== undefined) patch.email = input.email ? normaliseEmail(input.email) : null;
  if (input.phone !== undefined) patch.phone = input.phone ? normalisePhone(input.phone, await country(db)) : null;
  if (input.marketing_consent !== undefined) patch.marketing_consent = input.marketing_consent;
  for (const f of ['email', 'phone'] as const) {
    const v = patch[f];
    if (!v) continue;
    let q = db.selectFrom('customers').select('id').where(f, '=', v);
    if (exceptId) q = q.where('id', '!=', exceptId);
    if (await q.executeTakeFirst()) throw contactTaken(f);
  }
  return patch;
}

/** `POST /customers`: a customer with at least a name, an e-mail or a phone, and a loyalty account. */
export async function createCustomer(db: TenantDb, actor: BackofficeActor, input: CustomerInput, now: Date) {
  const patch = await contactPatch(db, input, null);
  if (!patch.name && !patch.email && !patch.phone) throw errors.field('name', 'A name, an email address or a phone number is required.');
  return writingContacts(() => db.transaction().execute(async (tx) => {
    const c = await tx
      .insertInto('customers')
      .values({ id: Bun.randomUUIDv7(), name: patch.name ?? null, email: patch.email ?? null, phone: patch.phone ?? null, marketing_consent: patch.marketing_consent ?? false, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx.insertInto('loyalty_accounts').values({ customer_id: c.id, updated_at: now }).execute();
    await addTimelineEvent(tx, c.id, 'enrolled', null, { source: 'back_office' }, now);
    await logActivity(tx, { userId: actor.userId, action: 'created', subject: 'customer', subjectId: c.id });
    return customerView(c);
  }));
}

/** `PUT /customers/{id}`: the fields given; the log names the fields changed, not their values (personal data). */
export async function updateCustomer(db: TenantDb, actor: BackofficeActor, id: string, input: CustomerInput, now: Date) {
  await getCustomer(db, id);
  const patch = await contactPatch(db, input, id);
  return writingContacts(() => db.transaction().execute(async (tx) => {
    // Erased since the check above: 404, not a 500 from an update that found no row.
    await lockCustomer(tx, id);
    const c = await tx.updateTable('customers').set({ ...patch, ...contactFlags(patch), updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    if (!c.name && !c.email && !c.phone) throw errors.field('name', 'A name, an email address or a phone number is required.');
    await logActivity(tx, { userId: actor.userId, action: 'updated', subject: 'customer', subjectId: id, properties: { fields: Object.keys(patch).sort() } });
    return customerView(c);
  }));
}

/** `GET /customers/{id}`: the customer with balance and addresses; the read is audited. */
export async function readCustomer(db: TenantDb, actor: BackofficeActor, id: string) {
  const c = await getCustomer(db, id);
  const acct = await db.selectFrom('loyalty_accounts').select(['points', 'lifetime_points']).where('customer_id', '=', id).executeTakeFirst();
  const addresses = await db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', id).orderBy('is_default', 'desc').orderBy('created_at').orderBy('id').execute();
  const notes = await db.selectFrom('customer_notes').select(['id', 'user_id', 'note', 'created_at']).where('customer_id', '=', id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(50).execute();
  await logActivity(db, { userId: actor.userId, action: 'viewed', subject: 'customer', subjectId: id });
  return {
    ...customerView(c),
    loyalty: acct ?? { points: 0, lifetime_points: 0 },
    addresses: addresses.map(addressView),
    notes: notes.map((n) => ({ id: n.id, user_id: n.user_id, note: n.note, created_at: n.created_at.toISOString() })),
  };
}

/** `POST /customers/{id}/notes`. */
export async function addCustomerNote(db: TenantDb, actor: BackofficeActor, id: string, note: string, now: Date) {
  // The schema's minLength counts spaces: a note that is blank once trimmed is no note.
  const text = note.trim();
  if (!text) throw errors.field('note', 'The note field is required.');
  await getCustomer(db, id);
  return db.transaction().execute(async (tx) => {
    await lockCustomer(tx, id);
    const n = await tx.insertInto('customer_notes').values({ id: Bun.randomUUIDv7(), customer_id: id, user_id: actor.userId, note: text, created_at: now }).returningAll().executeTakeFirstOrThrow();
    await addTimelineEvent(tx, id, 'note_added', null, { note_id: n.id }, now);
    await logActivity(tx, { userId: actor.userId, action: 'noted', subject: 'customer', subjectId: id });
    return { id: n.id, user_id: n.user_id, note: n.note, created_at: n.created_at.toISOString() };
  });
}

/** `POST /customers/{id}/marketing`: consent given or withdrawn, on the timeline and in the log. */
export async function setMarketingConsent(db: TenantDb, actor: BackofficeActor, id: string, consent: boolean, now: Date) {
  await getCustomer(db, id);
  return db.transaction().execute(async (tx) => {
    await lockCustomer(tx, id);
    const c = await tx.updateTable('customers').set({ marketing_consent: consent, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await addTimelineEvent(tx, id, consent ? 'marketing_opted_in' : 'marketing_opted_out', null, { by: 'back_office' }, now);
    await logActivity(tx, { userId: actor.userId, action: 'updated', subject: 'customer', subjectId: id, properties: { fields: ['marketing_consent'] } });
    return customerView(c);
  });
}

/** `GET /customers/{id}/gift-cards`: cards held (code never shown again: last four only). */
export async function customerGiftCards(db: TenantDb, id: string) {
  await getCustomer(db, id);
  const rows = await db.selectFrom('gift_cards').select(['id', 'last4', 'balance', 'initial_balance', 'status', 'expires_at', 'created_at']).where('customer_id', '=', id).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map((g) => ({ ...g, expires_at: g.expires_at ? g.expires_at.toISOString() : null, created_at: g.created_at.toISOString() }));
}

/**
 * The customer's orders at locations outside `locationIds` (the caller's grant). The orders list is
 * location-scoped, so the records tied to an order (reward redemptions, timeline events) leave these out
 * too; records tied to no order stay.
 */
function ordersOutside(db: TenantDb, customerId: string, locationIds: readonly string[]) {
  const q = db.selectFrom('transactions').select('id').where('customer_id', '=', customerId);
  return locationIds.length ? q.where('location_id', 'not in', [...locationIds]) : q;
}

/** `GET /customers/{id}/reward-redemptions`. */
export async function customerRewardRedemptions(db: TenantDb, id: string, locationIds?: readonly string[]) {
  await getCustomer(db, id);
  const rows = await db
    .selectFrom('loyalty_ledger')
    .leftJoin('loyalty_rewards', 'loyalty_rewards.id', 'loyalty_ledger.reward_id')
    .select(['loyalty_ledger.id', 'loyalty_ledger.reward_id', 'loyalty_rewards.name as reward_name', 'loyalty_ledger.points', 'loyalty_ledger.transaction_id', 'loyalty_ledger.created_at'])
    .where('loyalty_ledger.customer_id', '=', id)
    .where('loyalty_ledger.kind', '=', 'redeem')
    .$if(locationIds !== undefined, (q) =>
      q.where((eb) => eb.or([eb('loyalty_ledger.transaction_id', 'is', null), eb('loyalty_ledger.transaction_id', 'not in', ordersOutside(db, id, locationIds!))])),
    )
    .orderBy('loyalty_ledger.created_at', 'desc')
    .orderBy('loyalty_ledger.id', 'desc')
    .limit(200)
    .execute();
  return rows.map((r) => ({ id: r.id, reward: r.reward_id ? { id: r.reward_id, name: r.reward_name } : null, points: -r.points, transaction_id: r.transaction_id, created_at: r.created_at.toISOString() }));
}

/** `GET /customers/{id}/timelines`: with `locationIds` (the caller's grant), events of orders elsewhere are left out. */
export async function customerTimeline(db: TenantDb, id: string, locationIds?: readonly string[]) {
  await getCustomer(db, id);
  const rows = await db
    .selectFrom('customer_timeline')
    .select(['id', 'kind', 'transaction_id', 'detail', 'created_at'])
    .where('customer_id', '=', id)
    .$if(locationIds !== undefined, (q) => q.where((eb) => eb.or([eb('transaction_id', 'is', null), eb('transaction_id', 'not in', ordersOutside(db, id, locationIds!))])))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(200)
    .execute();
  return rows.map((r) => ({ id: r.id, kind: r.kind, transaction_id: r.transaction_id, detail: r.detail, created_at: r.created_at.toISOString() }));
}

/**
 * `DELETE /customers/{id}` (privacy): personal data goes, sales stay. The customer row, addresses,
 * notes, timeline, loyalty account and ledger, tokens and login codes are deleted; transactions keep
 * their amounts but lose the customer link and the name they were called by; gift cards and offer
 * redemptions are unlinked. The log records the deletion without personal data.
 */
export async function eraseCustomer(db: TenantDb, actor: BackofficeActor, id: string) {
  await db.transaction().execute(async (tx) => {
    const c = await tx.selectFrom('customers').select(['id', 'email', 'phone']).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!c) throw errors.notFound('customer');
    const anonymous = { customer_id: null, customer_name: null, customer_email: null, customer_phone: null, delivery_address: null };
    const orders = await tx.updateTable('transactions').set(anonymous).where('customer_id', '=', id).executeTakeFirst();
    // Storefront orders placed as a guest with the same contact (stored as the customer's are normalised):
    // this person's too, so the name they gave and where they had it delivered go as well.
    if (c.email) await tx.updateTable('transactions').set(anonymous).where('customer_email', '=', c.email).execute();
    if (c.phone) await tx.updateTable('transactions').set(anonymous).where('customer_phone', '=', c.phone).execute();
    await tx.updateTable('offer_redemptions').set({ customer_id: null }).where('customer_id', '=', id).execute();
    await tx.updateTable('gift_cards').set({ customer_id: null }).where('customer_id', '=', id).execute();
    const destinations = [c.email, c.phone].filter((v): v is string => !!v);
    if (destinations.length) await tx.deleteFrom('customer_otps').where('destination', 'in', destinations).execute();
    // Addresses, notes, timeline, loyalty account, ledger and tokens go with the row (on delete cascade).
    await tx.deleteFrom('customers').where('id', '=', id).execute();
    await logActivity(tx, { userId: actor.userId, action: 'deleted', subject: 'customer', subjectId: id, properties: { anonymised_orders: Number(orders.numUpdatedRows) } });
  });
}
