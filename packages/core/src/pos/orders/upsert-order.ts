import { withWriteRetry, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { toFieldErrorMap, type FieldError } from '@pos/domain/field-error';
import { lineTotals, type LineDiscount, type OrderLine, type OrderModifier } from '@pos/domain/orders/line-totals';
import { orderTotals } from '@pos/domain/orders/order-totals';
import {
  CATALOG_PRICE_SOURCE,
  isUuidV4,
  orderTotalProblem,
  planUpsert,
  sameLine,
  STALE_VERSION_MESSAGE,
  requiredPermissions,
  validateLines,
  type ModifierPriceOf,
  type StoredOrderView,
  type UpsertPlan,
} from '@pos/domain/orders/order-rules';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { findLocationOrder, isUuidText, orderNotFound } from './order-queries.ts';
import { storedLines, toOrderResource, type OrderResource, type OrderRow, type StoredLine } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';
import { unlabelledVatRates } from '@pos/fiscal';
import { activeFdmFor, isSigning } from '../../fiscal/index.ts';

export { CATALOG_PRICE_SOURCE };

export const SETTLING_MESSAGE = 'This order is being settled and can no longer be changed.';

/** `PUT /pos/orders/{clientUuid}` body, after the route's shape validation. `lines` is checked here. */
export interface UpsertOrderInput {
  readonly clientUuid: string;
  /** Absent or null reads as 0: a new order (CONTRACTS 5). */
  readonly expected_version?: number | null;
  readonly order_profile?: { readonly behavior: string } | null;
  readonly table_number?: string | null;
  readonly lines: unknown;
}

interface CatalogItem {
  id: string;
  name: string;
  unit_price: number;
  vat_rate: number;
  category: string | null;
  visible: boolean;
  channels: string[];
  location_ids: string[] | null;
  /** Sold in variants (sizes...): no price of its own. */
  in_variants: boolean;
}

interface CatalogModifier {
  id: string;
  name: string;
  price: number;
}

/** The register's channel among an item's `channels`. */
const POS_CHANNEL = 'pos';

function cleanModifier(m: OrderModifier): OrderModifier {
  return {
    ...(m.id !== undefined && m.id !== null ? { id: m.id } : {}),
    ...(m.name !== undefined && m.name !== null ? { name: m.name } : {}),
    price: m.price,
    ...(m.qty !== undefined && m.qty !== null ? { qty: m.qty } : {}),
  };
}

/** Whether the register at `locationId` sells the item: shown (`visible`), on the `pos` channel, at that location. */
function soldHere(item: CatalogItem, locationId: string): boolean {
  return item.visible && item.channels.includes(POS_CHANNEL) && (item.location_ids === null || item.location_ids.some((l) => l.toLowerCase() === locationId.toLowerCase()));
}

/** The modifiers of the items' modifier groups, per item id and modifier id (both lower case). */
async function modifiersOf(db: TenantDb, itemIds: readonly string[]): Promise<Map<string, Map<string, CatalogModifier>>> {
  const rows =
    itemIds.length === 0
      ? []
      : await db
          .selectFrom('item_modifier_groups')
          .innerJoin('modifiers', 'modifiers.modifier_group_id', 'item_modifier_groups.modifier_group_id')
          .select(['item_modifier_groups.item_id', 'modifiers.id', 'modifiers.name', 'modifiers.price'])
          .where('item_modifier_groups.item_id', 'in', [...itemIds])
          .execute();
  const out = new Map<string, Map<string, CatalogModifier>>();
  for (const r of rows) {
    const item = r.item_id.toLowerCase();
    if (!out.has(item)) out.set(item, new Map());
    out.get(item)!.set(r.id.toLowerCase(), { id: r.id, name: r.name, price: r.price });
  }
  return out;
}

/**
 * Prices the client's lines (decisions.md, Register, "Prices"). A `catalog` line takes its
 * `unit_price` from the item and its catalog modifiers' prices from the catalog, and must be an item
 * the register sells (`visible`, channel `pos`, the register's location): otherwise a 422 on
 * `lines.N.item_id`. Any other `price_source` keeps the prices sent (a price other than the catalog's
 * needs apply_discount, `requiredPermissions`). The name and VAT rate always come from the item, a
 * catalog modifier's name from the catalog. A modifier `id` must be one of the item's modifiers (422
 * on `lines.N.modifiers.M.id`); a modifier without one is free text priced as sent. An item the
 * catalog does not hold is a 422 on `lines.N.item_id` (its VAT rate and name are unknown); an order
 * above MAX_ORDER_TOTAL is a 422 on `lines`. At a location that signs (`signs`), an item whose VAT rate
 * has no fiscal label (A 21 %, B 12 %, C 6 %, D 0 %) is a 422 on `lines.N.item_id`: the line could
 * never be fired or settled there, so it is not stored.
 */
async function priceLines(
  db: TenantDb,
  locationId: string,
  lines: readonly OrderLine[],
  signs: boolean,
  stored: readonly StoredLine[] = [],
): Promise<{ lines: StoredLine[]; catalogPrice: (itemId: string) => number | undefined; modifierPrice: ModifierPriceOf }> {
  const ids = [...new Set(lines.map((l) => l.item_id).filter(isUuidText).map((s) => s.toLowerCase()))];
  const items: CatalogItem[] =
    ids.length === 0
      ? []
      : await db
          .selectFrom('items')
          .select(['id', 'name', 'unit_price', 'vat_rate', 'category', 'visible', 'channels', 'location_ids'])
          .select((eb) => eb.exists(eb.selectFrom('variant_groups as g').innerJoin('variants as v', 'v.variant_group_id', 'g.id').select('g.id').whereRef('g.item_id', '=', 'items.id')).$castTo<boolean>().as('in_variants'))
          .where('id', 'in', ids)
          .execute();
  const byId = new Map(items.map((i) => [i.id.toLowerCase(), i] as const));
  // Only the items whose lines name a catalog modifier (most lines carry none): no query otherwise.
  const withModifierIds = new Set(lines.filter((l) => (l.modifiers ?? []).some((m) => typeof m.id === 'string')).map((l) => l.item_id.toLowerCase()));
  const modifiers = await modifiersOf(db, items.map((i) => i.id).filter((id) => withModifierIds.has(id.toLowerCase())));
  const modifierOf = (itemId: string, modifierId: string) => modifiers.get(itemId.toLowerCase())?.get(modifierId.toLowerCase());
  const problems: FieldError[] = [];
  const out: StoredLine[] = [];
  const storedByUuid = new Map(stored.map((l) => [l.uuid.toLowerCase(), l] as const));
  lines.forEach((l, i) => {
    // A line already on the order, sent back as the order holds it (spec 2: a PUT is the whole
    // document), stays as it was written when its item has left the menu since (hidden, deleted, sold
    // in variants now, a modifier gone): otherwise one item taken off the menu froze every open tab
    // holding it. A changed line is a new sale of the item and is checked as one.
    const before = storedByUuid.get(l.uuid.toLowerCase());
    const keep = before !== undefined && sameLine(l, before) ? before : null;
    const offMenu: FieldError[] = [];
    const item = byId.get(l.item_id.toLowerCase());
    if (!item) {
      if (keep) out.push(keep);
      else problems.push({ field: `lines.${i}.item_id`, message: `The selected lines.${i}.item_id is invalid.` });
      return;
    }
    const fromCatalog = l.price_source === CATALOG_PRICE_SOURCE;
    // The kiosk's words for an item its channel does not sell (quote-basket.ts).
    if (fromCatalog && !soldHere(item, locationId)) offMenu.push({ field: `lines.${i}.item_id`, message: `The selected lines.${i}.item_id is not on the menu.` });
    // Items sold in variants have no price of their own, and the register names no variant (spec 2's
    // lines carry none): a catalog line of one would sell at a price the menu does not have.
    else if (fromCatalog && item.in_variants) offMenu.push({ field: `lines.${i}.item_id`, message: `${item.name} is sold in variants, which have their own prices: sell it at its variant's price as an open price.` });
    if (signs && unlabelledVatRates([Number(item.vat_rate)]).length > 0) {
      problems.push({ field: `lines.${i}.item_id`, message: unlabelledVatRateMessage(item.name, Number(item.vat_rate)) });
    }
    const priced = (l.modifiers ?? []).map((sent, j): OrderModifier => {
      const m = cleanModifier(sent);
      if (m.id === undefined || m.id === null) return m;
      const listed = modifierOf(item.id, m.id);
      if (!listed) {
        offMenu.push({ field: `lines.${i}.modifiers.${j}.id`, message: `The selected lines.${i}.modifiers.${j}.id is not a modifier of this item.` });
        return m;
      }
      return { ...m, id: listed.id, name: listed.name, price: fromCatalog ? listed.price : m.price };
    });
    if (offMenu.length > 0) {
      if (keep) out.push(keep);
      else problems.push(...offMenu);
      return;
    }
    const discount: LineDiscount | undefined = l.discount ? { type: l.discount.type, value: l.discount.value } as LineDiscount : undefined;
    const line: OrderLine = {
      uuid: l.uuid,
      item_id: item.id,
      qty: l.qty,
      unit_price: fromCatalog ? item.unit_price : l.unit_price,
      price_source: l.price_source,
      modifiers: priced,
      ...(discount ? { discount } : {}),
    };
    out.push({ ...line, modifiers: priced, name: item.name, vat_rate: item.vat_rate, category: item.category, line_total: lineTotals(line).gross });
  });
  // The bound on the lines' sum first: the VAT of a rate's gross is computed in safe integers, which
  // an order far past the bound (each field within its own) overflows.
  const total = orderTotalProblem(out.reduce((sum, l) => sum + l.line_total, 0));
  if (total) problems.push(total);
  if (problems.length > 0) throw errors.validation(toFieldErrorMap(problems));
  return { lines: out, catalogPrice: (itemId) => byId.get(itemId.toLowerCase())?.unit_price, modifierPrice: (itemId, modifierId) => modifierOf(itemId, modifierId)?.price };
}

/** The 422 text of a line whose item's VAT rate the fiscal data module has no label for. */
export const unlabelledVatRateMessage = (itemName: string, rate: number) =>
  `The VAT rate of ${itemName} (${rate} %) has no fiscal label: only 21 %, 12 %, 6 % and 0 % can be signed. Give the item a Belgian VAT rate or take the line off.`;

/** The VAT rate of each line is the one frozen on it (the catalog's at the time the line was written). */
export function totalsOf(lines: readonly StoredLine[]) {
  const rates = new Map(lines.map((l) => [l.item_id, l.vat_rate] as const));
  return orderTotals(lines, (id) => rates.get(id) ?? 0);
}

function storedView(row: OrderRow): StoredOrderView {
  return { state: row.state, version: row.version, fired: row.fired, lines: storedLines(row) };
}

/** Turns a refusing plan into the error the client sees; returns the plan when it is a write. */
function refusalOf(plan: UpsertPlan): Error | null {
  switch (plan.kind) {
    case 'stale':
      return errors.conflict(plan.message, { reason: plan.reason, extra: { current_version: plan.current_version } });
    case 'refuse':
      return errors.conflict(plan.message, { reason: plan.reason });
    case 'create':
    case 'update':
    case 'void':
      return null;
  }
}

/** The plan for a stored row; a SETTLING order (sale being signed) is refused like any order no longer OPEN (domain rule). */
function planFor(row: OrderRow | null, lines: readonly StoredLine[], expected: number | null | undefined): UpsertPlan {
  return planUpsert(row ? storedView(row) : null, lines, { expected_version: expected });
}

/**
 * Full-document upsert of a register order (spec 2 "Order rules", CONTRACTS 5).
 *
 * Validation (422, dot paths): `clientUuid` and line uuids UUID v4, line fields, catalog items.
 * Then the plan of `planUpsert`: create at version 1, update at version + 1, void an emptied
 * unfired order, 409 `order_fired` for an emptied fired one, 409 `not_open` for a settled or voided
 * one, 409 `stale_version` with `current_version`. Permissions (`requiredPermissions`) are checked
 * against the version being replaced, and the write only lands on that exact version:
 * `INSERT ... ON CONFLICT DO NOTHING` for a create and `UPDATE ... WHERE version = ?` for a change,
 * so of two writers holding the same version one wins and the other gets the 409 of the fresh row.
 * An order of another location (or merchant) is a 404.
 */
export async function upsertOrder(db: TenantDb, actor: RegisterActor, authorizer: StaffAuthorizer, input: UpsertOrderInput, now: Date): Promise<OrderResource> {
  const problems: FieldError[] = [];
  if (!isUuidV4(input.clientUuid)) problems.push({ field: 'clientUuid', message: 'The clientUuid must be a valid UUID v4.' });
  problems.push(...validateLines(input.lines));
  if (problems.length > 0) throw errors.validation(toFieldErrorMap(problems));
  const clientUuid = input.clientUuid.toLowerCase();
  const signs = isSigning(await activeFdmFor(db, actor.locationId));
  const stored = await findLocationOrder(db, actor.locationId, clientUuid);
  // Only an open order's lines are kept as written: a settled or voided one is refused below anyway.
  const { lines, catalogPrice, modifierPrice } = await priceLines(db, actor.locationId, input.lines as OrderLine[], signs, stored?.state === 'OPEN' ? storedLines(stored) : []);

  if (!stored) {
    // Only another location's order is a 404: a row of this location that appeared meanwhile is a
    // concurrent create, which the insert below turns into 409 stale_version.
    const elsewhere = await db.selectFrom('pos_orders').select('id').where('id', '=', clientUuid).where('location_id', '<>', actor.locationId).executeTakeFirst();
    if (elsewhere) throw orderNotFound();
  }
  const plan = planFor(stored, lines, input.expected_version);
  if (plan.kind === 'stale' || plan.kind === 'refuse') throw refusalOf(plan)!;
  // A line or modifier priced away from the catalog needs apply_discount, like a discount (requiredPermissions).
  await authorizer.requireAll(requiredPermissions(stored ? storedView(stored) : null, lines, catalogPrice, modifierPrice));

  const voiding = plan.kind === 'void';
  const written = voiding ? [] : lines;
  const values = {
    version: plan.version,
    state: voiding ? ('VOIDED' as const) : ('OPEN' as const),
    order_profile: JSON.stringify(input.order_profile ? { behavior: input.order_profile.behavior } : {}),
    table_number: input.table_number ?? null,
    lines: JSON.stringify(written),
    totals: JSON.stringify(totalsOf(written)),
    updated_at: now,
  };

  const row = await withWriteRetry(async () => {
    if (plan.kind === 'create') {
      return db
        .insertInto('pos_orders')
        .values({ id: clientUuid, location_id: actor.locationId, device_id: actor.deviceId, staff_id: actor.staffId, fired: false, created_at: now, ...values })
        .onConflict((oc) => oc.column('id').doNothing())
        .returningAll()
        .executeTakeFirst();
    }
    return db
      .updateTable('pos_orders')
      .set(values)
      .where('id', '=', clientUuid)
      .where('location_id', '=', actor.locationId)
      .where('version', '=', stored!.version)
      .where('state', '=', 'OPEN')
      .returningAll()
      .executeTakeFirst();
  });
  if (row) return toOrderResource(row);

  // Lost the race: answer from the row that won (usually 409 stale_version).
  const fresh = await findLocationOrder(db, actor.locationId, clientUuid);
  if (!fresh) throw orderNotFound();
  const again = refusalOf(planFor(fresh, lines, input.expected_version));
  throw again ?? errors.conflict(STALE_VERSION_MESSAGE, { reason: 'stale_version', extra: { current_version: fresh.version } });
}
