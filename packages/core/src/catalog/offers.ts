import type { TenantDb } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { offerTransition, type OfferOperation, type OfferStatus } from '@pos/domain/catalog/offer-state';
import { parseHhMm, type OfferRule, type OfferSchedule, type PricingOffer } from '@pos/domain/catalog/pricing';
import { offerTargetRefusal, removeOfferTarget } from '@pos/domain/catalog/offer-targets';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { requireAllLocations, requireGrantedLocations, type Access } from '../auth/access.ts';

/** Offers (spec 1 "Offers", section 3): the rules `priceBasket` needs, and the states of `offerTransition`. */
export interface OfferView {
  id: string;
  name: string;
  description: string | null;
  status: OfferStatus;
  rule: OfferRule;
  item_ids: string[];
  category_ids: string[];
  min_basket: number;
  channels: string[];
  location_ids: string[] | null;
  schedule: OfferSchedule | null;
  created_at: string;
  updated_at: string;
}

export interface OfferInput {
  name: string;
  description?: string | null;
  rule: OfferRule;
  item_ids: string[];
  category_ids?: string[];
  min_basket?: number;
  channels?: string[];
  location_ids?: string[] | null;
  schedule?: OfferSchedule | null;
}

type OfferRow = Awaited<ReturnType<typeof rows>>[number];
const rows = (tdb: TenantDb) => tdb.selectFrom('offers').selectAll().execute();

const view = (r: OfferRow): OfferView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  status: r.status,
  rule: r.rule as unknown as OfferRule,
  item_ids: [...r.item_ids],
  category_ids: [...r.category_ids],
  min_basket: r.min_basket,
  channels: [...r.channels],
  location_ids: r.location_ids ? [...r.location_ids] : null,
  schedule: (r.schedule as unknown as OfferSchedule | null) ?? null,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

const find = (tdb: TenantDb, id: string) => findOr404('offer', id, (x) => tdb.selectFrom('offers').selectAll().where('id', '=', x).executeTakeFirst());
/** The offer, its row locked until the transaction ends: concurrent writes on it run one after the other and see each other's result. */
const findLocked = (tdb: TenantDb, id: string) => findOr404('offer', id, (x) => tdb.selectFrom('offers').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());

/**
 * An offer discounts the sales of its locations, so writing one is limited to the caller's location
 * grant as menus are: every listed location must be granted, and `null` (every location, including
 * ones created later) needs a caller with all locations; otherwise 403.
 */
export function requireOfferLocations(access: Access, locationIds: readonly string[] | null): void {
  if (locationIds === null) requireAllLocations(access);
  else requireGrantedLocations(access, locationIds);
}

export async function getOffer(tdb: TenantDb, id: string): Promise<OfferView> {
  return view(await find(tdb, id));
}

/** `GET /offers`: optional `status`; newest first. */
export async function listOffers(tdb: TenantDb, q: { status?: OfferStatus }): Promise<OfferView[]> {
  let qb = tdb.selectFrom('offers').selectAll();
  if (q.status) qb = qb.where('status', '=', q.status);
  return (await qb.orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map(view);
}

async function validate(tx: TenantDb, input: Partial<OfferInput>): Promise<void> {
  if (input.item_ids) {
    requireDistinct(input.item_ids, 'item_ids');
    await requireIds(tx, 'items', input.item_ids, 'item_ids', 'item');
  }
  if (input.category_ids) {
    requireDistinct(input.category_ids, 'category_ids');
    await requireIds(tx, 'categories', input.category_ids, 'category_ids', 'category');
  }
  if (input.location_ids) {
    requireDistinct(input.location_ids, 'location_ids');
    await requireIds(tx, 'locations', input.location_ids, 'location_ids', 'location');
  }
  if (input.channels) requireDistinct(input.channels, 'channels');
  if (input.schedule) {
    requireDistinct(input.schedule.days.map(String), 'schedule.days');
    if (parseHhMm(input.schedule.start) === null) throw errors.field('schedule.start', 'The schedule start must be a time HH:MM.');
    if (parseHhMm(input.schedule.end) === null) throw errors.field('schedule.end', 'The schedule end must be a time HH:MM.');
    // Compared as times: `9:00` and `09:00` are the same minute.
    if (parseHhMm(input.schedule.start) === parseHhMm(input.schedule.end)) throw errors.field('schedule.end', 'The schedule end must differ from its start.');
  }
}

const lower = (ids: readonly string[]) => ids.map((x) => x.toLowerCase());

export async function createOffer(scope: CatalogScope, input: OfferInput): Promise<OfferView> {
  return catalogTx(scope, async (tx) => {
    await validate(tx, input);
    requireOfferLocations(scope.access, input.location_ids ?? null);
    const row = await tx
      .insertInto('offers')
      .values({
        id: newId(),
        name: input.name.trim(),
        description: input.description ?? null,
        rule: JSON.stringify(input.rule),
        item_ids: lower(input.item_ids),
        category_ids: lower(input.category_ids ?? []),
        min_basket: input.min_basket ?? 0,
        channels: input.channels ?? [],
        location_ids: input.location_ids ? lower(input.location_ids) : null,
        schedule: input.schedule ? JSON.stringify(input.schedule) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return view(row);
  });
}

function decide(status: OfferStatus, op: OfferOperation): OfferStatus {
  const d = offerTransition(status, op);
  if (d.kind === 'refused') throw new AppError('conflict', d.message, { reason: d.reason });
  return d.next;
}

export async function updateOffer(scope: CatalogScope, id: string, input: Partial<OfferInput>): Promise<OfferView> {
  return catalogTx(scope, async (tx) => {
    const current = await findLocked(tx, id);
    requireOfferLocations(scope.access, current.location_ids);
    decide(current.status, 'edit');
    await validate(tx, input);
    if (input.location_ids !== undefined) requireOfferLocations(scope.access, input.location_ids);
    const row = await tx
      .updateTable('offers')
      .set({
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.rule !== undefined ? { rule: JSON.stringify(input.rule) } : {}),
        ...(input.item_ids !== undefined ? { item_ids: lower(input.item_ids) } : {}),
        ...(input.category_ids !== undefined ? { category_ids: lower(input.category_ids) } : {}),
        ...(input.min_basket !== undefined ? { min_basket: input.min_basket } : {}),
        ...(input.channels !== undefined ? { channels: input.channels } : {}),
        ...(input.location_ids !== undefined ? { location_ids: input.location_ids ? lower(input.location_ids) : null } : {}),
        ...(input.schedule !== undefined ? { schedule: input.schedule ? JSON.stringify(input.schedule) : null } : {}),
        updated_at: scope.now,
      })
      .where('id', '=', current.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return view(row);
  });
}

/** `activate`, `deactivate`, `archive`, `unarchive`: refused transitions are 409 with the domain's reason. */
export async function transitionOffer(scope: CatalogScope, id: string, op: Exclude<OfferOperation, 'edit'>): Promise<OfferView> {
  return catalogTx(scope, async (tx) => {
    const current = await findLocked(tx, id);
    requireOfferLocations(scope.access, current.location_ids);
    const next = decide(current.status, op);
    const row = await tx.updateTable('offers').set({ status: next, updated_at: scope.now }).where('id', '=', current.id).returningAll().executeTakeFirstOrThrow();
    return view(row);
  });
}

/** An active offer cannot be deleted (409 `offer_active`): deactivate or archive it first. */
export async function deleteOffer(scope: CatalogScope, id: string): Promise<void> {
  await catalogTx(scope, async (tx) => {
    const current = await findLocked(tx, id);
    requireOfferLocations(scope.access, current.location_ids);
    if (current.status === 'active') throw errors.conflict('An active offer cannot be deleted. Deactivate or archive it first.', { reason: 'offer_active' });
    await tx.deleteFrom('offers').where('id', '=', current.id).execute();
  });
}

/**
 * An item or category being deleted leaves every offer that names it, in the deletion's transaction
 * (the offers are locked first, so an offer edited at that moment is seen or waits). An offer that
 * would be left with no target at all (which means every item) refuses the deletion: 409
 * `item_in_offer` / `category_in_offer`, nothing changed.
 */
export async function detachFromOffers(tx: TenantDb, access: Access, kind: 'item' | 'category', id: string, now: Date): Promise<void> {
  const column = kind === 'item' ? 'item_ids' : 'category_ids';
  const named = await tx
    .selectFrom('offers')
    .select(['id', 'name', 'item_ids', 'category_ids', 'location_ids'])
    .where((eb) => eb(eb.val(id), '=', eb.fn.any(column)))
    .orderBy('id')
    .forUpdate()
    .execute();
  // Narrowing an offer is writing it: each within the caller's grant, as `PUT /offers/{id}` (403 before any 409).
  for (const o of named) requireOfferLocations(access, o.location_ids);
  for (const o of named) {
    const d = removeOfferTarget(o, { kind, id });
    if (d.kind === 'refused') throw errors.conflict(offerTargetRefusal(kind, o.name), { reason: `${kind}_in_offer` });
    if (d.kind === 'narrowed') await tx.updateTable('offers').set({ item_ids: d.item_ids, category_ids: d.category_ids, updated_at: now }).where('id', '=', o.id).execute();
  }
}

/** The active offers of a location, as the pricing function takes them (channel and schedule are checked there). */
export async function activeOffersFor(tdb: TenantDb, locationId: string): Promise<PricingOffer[]> {
  const list = await tdb.selectFrom('offers').selectAll().where('status', '=', 'active').orderBy('position').orderBy('created_at').orderBy('id').execute();
  return list
    .filter((o) => o.location_ids === null || o.location_ids.includes(locationId))
    .map((o) => ({
      id: o.id,
      name: o.name,
      rule: o.rule as unknown as OfferRule,
      item_ids: [...o.item_ids],
      category_ids: [...o.category_ids],
      min_basket: o.min_basket,
      channels: [...o.channels],
      schedule: (o.schedule as unknown as OfferSchedule | null) ?? null,
    }));
}

