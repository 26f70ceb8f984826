import { errors, type FieldErrors } from '@pos/kernel';
import { catalogText, externalIdHoldable } from '@pos/domain';
import { isUuid } from '@pos/domain/ids';
import { withWriteRetry, type TenantDb } from '@pos/db';
import type { RegisterBClient, RegisterBRelation } from '@pos/providers/register-b/register-b-client';
import { logActivity } from '../activity/log-activity.ts';
import { normaliseEmail, normalisePhone } from '../customers/contacts.ts';
import { findOrEnrolCustomer } from '../customers/customers.ts';
import { needClient } from './register-b-branches.ts';
import { callRegisterB, logRegisterB, providerStatus, registerBFailure, requireRegisterB, type RegisterBScope } from './register-b-connection.ts';

/**
 * register-b relations (its customers) and its pricing: the relations relayed page by page, linked one
 * to one to our customers by relation number (tenant `register_b_relations`), pulled into our customers,
 * created at register-b from one of ours, and register-b's prices for a relation or a basket. Money is in
 * integer cents here (the client converts register-b's major units).
 */
export const clampRelationLimit = (limit: number | undefined): number => (limit === undefined || !Number.isFinite(limit) ? 50 : Math.min(200, Math.max(1, Math.trunc(limit))));

export interface RelationView extends RegisterBRelation {
  /** Our customer linked to the relation, or null. */
  readonly customer_id: string | null;
}

async function linksOf(tdb: TenantDb, numbers: readonly string[]): Promise<Map<string, string>> {
  if (numbers.length === 0) return new Map();
  const rows = await tdb.selectFrom('register_b_relations').select(['relation_number', 'customer_id']).where('relation_number', 'in', numbers).execute();
  return new Map(rows.map((r) => [r.relation_number, r.customer_id]));
}

/** `GET /relations`: one page of register-b's relations (`limit` clamped to 1-200, default 50), each with its linked customer. */
export async function listRegisterBRelations(scope: RegisterBScope, client: RegisterBClient | null, q: { page?: number; limit?: number }): Promise<{ data: RelationView[]; meta: { page: number; limit: number; has_more: boolean } }> {
  const c = await requireRegisterB(scope);
  const limit = clampRelationLimit(q.limit);
  const page = Math.max(1, Math.trunc(q.page ?? 1));
  const r = await callRegisterB(() => needClient(client).relations(c.accountId, { page, limit }));
  const links = await linksOf(scope.tdb, r.relations.map((x) => x.number));
  return { data: r.relations.map((x) => ({ ...x, customer_id: links.get(x.number) ?? null })), meta: { page: r.page, limit, has_more: r.has_more } };
}

/**
 * A relation's contact as our customers keep it; a contact our rules refuse is left out. A national
 * phone number is read in `country`, the merchant's (its first location's, as the back office reads
 * customers' numbers), not always as Belgian.
 */
function contactOf(r: RegisterBRelation, country: string | null): { email: string | null; phone: string | null } {
  const safe = (f: () => string) => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  return { email: r.email ? safe(() => normaliseEmail(r.email!)) : null, phone: r.phone ? safe(() => normalisePhone(r.phone!, country)) : null };
}

const MAX_RELATION_PAGES = 50;

/**
 * `POST /relations/sync`: every relation (up to 50 pages of 200) becomes a linked customer. A linked
 * relation is left alone; an unlinked one is linked to the customer with its e-mail or phone, or a new
 * customer is enrolled. A customer already linked to another relation is not relinked (`skipped`).
 * Running it again links nothing new (idempotent).
 */
export async function syncRegisterBRelations(scope: RegisterBScope, client: RegisterBClient | null): Promise<{ relations: number; created: number; linked: number; unchanged: number; skipped: number }> {
  const c = await requireRegisterB(scope);
  const api = needClient(client);
  const all: RegisterBRelation[] = [];
  for (let page = 1; page <= MAX_RELATION_PAGES; page++) {
    const r = await callRegisterB(() => api.relations(c.accountId, { page, limit: 200 }));
    all.push(...r.relations);
    if (!r.has_more) break;
  }
  const country = (await scope.tdb.selectFrom('locations').select('country').orderBy('created_at').orderBy('id').executeTakeFirst())?.country ?? null;
  const counts = await withWriteRetry(() =>
    scope.tdb.transaction().execute(async (tx) => {
      let created = 0;
      let linked = 0;
      let unchanged = 0;
      let skipped = 0;
      const links = new Map((await tx.selectFrom('register_b_relations').select(['relation_number', 'customer_id']).execute()).map((l) => [l.relation_number, l.customer_id]));
      const linkedCustomers = new Set(links.values());
      for (const r of all) {
        if (links.has(r.number)) {
          unchanged++;
          continue;
        }
        if (r.number.length > 100 || !externalIdHoldable(r.number)) {
          skipped++;
          continue;
        }
        const { customer, created: isNew } = await findOrEnrolCustomer(tx, contactOf(r, country), catalogText(r.name, 200) || null, scope.now, 'register-b', { addContacts: true });
        if (linkedCustomers.has(customer.id)) {
          skipped++;
          continue;
        }
        await tx.insertInto('register_b_relations').values({ relation_number: r.number, customer_id: customer.id, created_at: scope.now }).execute();
        links.set(r.number, customer.id);
        linkedCustomers.add(customer.id);
        if (isNew) created++;
        else linked++;
      }
      return { relations: all.length, created, linked, unchanged, skipped };
    }),
  );
  await logRegisterB(scope.db, scope, c, { type: 'relations_synced', detail: Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ') }, scope.now);
  return counts;
}

async function requireCustomer(tdb: TenantDb, id: string) {
  const row = isUuid(id) ? await tdb.selectFrom('customers').select(['id', 'name', 'email', 'phone']).where('id', '=', id.toLowerCase()).executeTakeFirst() : undefined;
  if (!row) throw errors.notFound('customer');
  return row;
}

export interface RelationLinkView {
  readonly relation_number: string;
  readonly customer_id: string;
  readonly relation: RegisterBRelation;
}

/**
 * `POST /relations/link`: links our customer (404 `customer` when not the merchant's) to a register-b
 * relation (422 on `relation_number` when register-b does not know it). A relation linked to another
 * customer is 409; the customer's previous link, if any, is replaced.
 */
export async function linkRegisterBRelation(scope: RegisterBScope, client: RegisterBClient | null, input: { customer_id: string; relation_number: string }): Promise<RelationLinkView> {
  const c = await requireRegisterB(scope);
  const customer = await requireCustomer(scope.tdb, input.customer_id);
  const api = needClient(client);
  let relation: RegisterBRelation;
  try {
    relation = await api.relation(c.accountId, input.relation_number);
  } catch (e) {
    if (providerStatus(e) === 404) throw errors.field('relation_number', 'The relation could not be found at register-b.');
    return registerBFailure(e);
  }
  await withWriteRetry(() =>
    scope.tdb.transaction().execute(async (tx) => {
      const owner = await tx.selectFrom('register_b_relations').select('customer_id').where('relation_number', '=', relation.number).forUpdate().executeTakeFirst();
      if (owner && owner.customer_id !== customer.id) throw errors.conflict('The relation is already linked to another customer.', { reason: 'relation_linked' });
      await tx.deleteFrom('register_b_relations').where('customer_id', '=', customer.id).execute();
      await tx.insertInto('register_b_relations').values({ relation_number: relation.number, customer_id: customer.id, created_at: scope.now }).execute();
      await logActivity(tx, { userId: scope.userId, action: 'linked', subject: 'customer', subjectId: customer.id, properties: { provider: 'register-b', relation_number: relation.number } });
    }),
  );
  await logRegisterB(scope.db, scope, c, { type: 'relation_linked', detail: relation.number }, scope.now);
  return { relation_number: relation.number, customer_id: customer.id, relation };
}

/**
 * `POST /relations/create`: creates the relation at register-b from our customer (name, e-mail, phone)
 * and links it. A customer already linked is 409 `already_linked` (nothing is created at register-b).
 */
export async function createRegisterBRelation(scope: RegisterBScope, client: RegisterBClient | null, input: { customer_id: string }): Promise<RelationLinkView> {
  const c = await requireRegisterB(scope);
  const customer = await requireCustomer(scope.tdb, input.customer_id);
  const linked = await scope.tdb.selectFrom('register_b_relations').select('relation_number').where('customer_id', '=', customer.id).executeTakeFirst();
  if (linked) throw errors.conflict('The customer is already linked to a register-b relation.', { reason: 'already_linked' });
  const api = needClient(client);
  const name = (customer.name ?? customer.email ?? customer.phone ?? 'Customer').slice(0, 200);
  const relation = await callRegisterB(() => api.createRelation(c.accountId, { name, email: customer.email, phone: customer.phone }));
  await withWriteRetry(() =>
    scope.tdb.transaction().execute(async (tx) => {
      // Created at register-b already: a concurrent link of this customer loses to this one rather than orphaning the relation.
      await tx.deleteFrom('register_b_relations').where('customer_id', '=', customer.id).execute();
      await tx.insertInto('register_b_relations').values({ relation_number: relation.number, customer_id: customer.id, created_at: scope.now }).execute();
      await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'register_b_relation', subjectId: customer.id, properties: { relation_number: relation.number } });
    }),
  );
  await logRegisterB(scope.db, scope, c, { type: 'relation_created', detail: relation.number }, scope.now);
  return { relation_number: relation.number, customer_id: customer.id, relation };
}

/**
 * Our item ids -> register-b product ids. An id that is not one of the merchant's items, or an item not
 * synced from register-b, is a 422 on `<field>.N`.
 */
async function productsOf(tdb: TenantDb, itemIds: readonly string[], field: (i: number) => string): Promise<string[]> {
  const ids = itemIds.map((i) => i.toLowerCase());
  const valid = ids.filter(isUuid);
  const items = valid.length > 0 ? await tdb.selectFrom('items').leftJoin('register_b_items', 'register_b_items.item_id', 'items.id').select(['items.id', 'register_b_items.product_id']).where('items.id', 'in', valid).execute() : [];
  const byItem = new Map(items.map((r) => [r.id, r.product_id]));
  const errs: FieldErrors = {};
  const out: string[] = [];
  ids.forEach((id, i) => {
    if (!byItem.has(id)) errs[field(i)] = ['The selected item is invalid.'];
    else if (!byItem.get(id)) errs[field(i)] = ['The item is not a register-b product: run a register-b sync first.'];
    else out.push(byItem.get(id)!);
  });
  if (Object.keys(errs).length > 0) throw errors.validation(errs);
  return out;
}

/** `POST /relations/{relationNumber}/pricing-check`: the relation's prices (cents) for our items; an unknown relation is 404 `relation`. */
export async function registerBRelationPrices(
  scope: RegisterBScope,
  client: RegisterBClient | null,
  relationNumber: string,
  itemIds: readonly string[],
): Promise<{ relation_number: string; prices: { item_id: string; product_id: string; price: number; list_price: number }[] }> {
  const c = await requireRegisterB(scope);
  const productIds = await productsOf(scope.tdb, itemIds, (i) => `item_ids.${i}`);
  const api = needClient(client);
  let prices;
  try {
    prices = await api.relationPrices(c.accountId, relationNumber, productIds);
  } catch (e) {
    if (providerStatus(e) === 404) throw errors.notFound('relation');
    return registerBFailure(e);
  }
  const byProduct = new Map(prices.map((p) => [p.product_id, p]));
  return {
    relation_number: relationNumber,
    prices: itemIds.map((itemId, i) => {
      const p = byProduct.get(productIds[i]!);
      return { item_id: itemId.toLowerCase(), product_id: productIds[i]!, price: p?.price ?? 0, list_price: p?.list_price ?? 0 };
    }),
  };
}

export interface RegisterBQuoteView {
  readonly relation_number: string | null;
  readonly lines: { item_id: string; product_id: string; quantity: number; unit_price: number; line_total: number }[];
  readonly subtotal: number;
  readonly discount: number;
  readonly total: number;
}

/** `POST /pricing/quote`: a basket of our items priced by register-b, for an optional relation (422 on `relation_number` when unknown). */
export async function quoteRegisterB(scope: RegisterBScope, client: RegisterBClient | null, input: { relation_number?: string | null; lines: readonly { item_id: string; quantity: number }[] }): Promise<RegisterBQuoteView> {
  const c = await requireRegisterB(scope);
  const productIds = await productsOf(scope.tdb, input.lines.map((l) => l.item_id), (i) => `lines.${i}.item_id`);
  const api = needClient(client);
  const relationNumber = input.relation_number ?? null;
  let q;
  try {
    q = await api.quote(c.accountId, { relation_number: relationNumber, lines: input.lines.map((l, i) => ({ product_id: productIds[i]!, quantity: l.quantity })) });
  } catch (e) {
    if (providerStatus(e) === 404) throw errors.field('relation_number', 'The relation could not be found at register-b.');
    return registerBFailure(e);
  }
  return {
    relation_number: relationNumber,
    lines: q.lines.map((l, i) => ({ item_id: input.lines[i]!.item_id.toLowerCase(), product_id: l.product_id, quantity: l.quantity, unit_price: l.unit_price, line_total: l.line_total })),
    subtotal: q.subtotal,
    discount: q.discount,
    total: q.total,
  };
}
