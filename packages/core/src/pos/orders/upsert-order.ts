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
  STALE_VERSION_MESSAGE,
  requiredPermissions,
  validateLines,
  type StoredOrderView,
  type UpsertPlan,
} from '@pos/domain/orders/order-rules';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { findLocationOrder, isUuidText, orderNotFound } from './order-queries.ts';
import { storedLines, toOrderResource, type OrderResource, type OrderRow, type StoredLine } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';

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
}

function cleanModifier(m: OrderModifier): OrderModifier {
  return {
    ...(m.id !== undefined && m.id !== null ? { id: m.id } : {}),
    ...(m.name !== undefined && m.name !== null ? { name: m.name } : {}),
    price: m.price,
    ...(m.qty !== undefined && m.qty !== null ? { qty: m.qty } : {}),
  };
}

/**
 * Prices the client's lines: `unit_price` from the catalog item when `price_source` is `catalog`
 * (any other source keeps the price sent, and needs apply_discount when it differs), the name and
 * VAT rate always from the item. An item the catalog does not hold is a 422 on `lines.N.item_id`
 * (its VAT rate and name are unknown); an order above MAX_ORDER_TOTAL is a 422 on `lines`.
 */
async function priceLines(db: TenantDb, lines: readonly OrderLine[]): Promise<{ lines: StoredLine[]; catalogPrice: (itemId: string) => number | undefined }> {
  const ids = [...new Set(lines.map((l) => l.item_id).filter(isUuidText).map((s) => s.toLowerCase()))];
  const items: CatalogItem[] = ids.length === 0 ? [] : await db.selectFrom('items').select(['id', 'name', 'unit_price', 'vat_rate', 'category']).where('id', 'in', ids).execute();
  const byId = new Map(items.map((i) => [i.id.toLowerCase(), i] as const));
  const problems: FieldError[] = [];
  const out: StoredLine[] = [];
  lines.forEach((l, i) => {
    const item = byId.get(l.item_id.toLowerCase());
    if (!item) {
      problems.push({ field: `lines.${i}.item_id`, message: `The selected lines.${i}.item_id is invalid.` });
      return;
    }
    const discount: LineDiscount | undefined = l.discount ? { type: l.discount.type, value: l.discount.value } as LineDiscount : undefined;
    const priced: OrderLine = {
      uuid: l.uuid,
      item_id: item.id,
      qty: l.qty,
      unit_price: l.price_source === CATALOG_PRICE_SOURCE ? item.unit_price : l.unit_price,
      price_source: l.price_source,
      modifiers: (l.modifiers ?? []).map(cleanModifier),
      ...(discount ? { discount } : {}),
    };
    out.push({ ...priced, modifiers: priced.modifiers ?? [], name: item.name, vat_rate: item.vat_rate, category: item.category, line_total: lineTotals(priced).gross });
  });
  const total = orderTotalProblem(totalsOf(out).total);
  if (total) problems.push(total);
  if (problems.length > 0) throw errors.validation(toFieldErrorMap(problems));
  return { lines: out, catalogPrice: (itemId) => byId.get(itemId.toLowerCase())?.unit_price };
}

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
  const { lines, catalogPrice } = await priceLines(db, input.lines as OrderLine[]);

  const stored = await findLocationOrder(db, actor.locationId, clientUuid);
  if (!stored) {
    // Only another location's order is a 404: a row of this location that appeared meanwhile is a
    // concurrent create, which the insert below turns into 409 stale_version.
    const elsewhere = await db.selectFrom('pos_orders').select('id').where('id', '=', clientUuid).where('location_id', '<>', actor.locationId).executeTakeFirst();
    if (elsewhere) throw orderNotFound();
  }
  const plan = planFor(stored, lines, input.expected_version);
  if (plan.kind === 'stale' || plan.kind === 'refuse') throw refusalOf(plan)!;
  // A line priced away from the catalog needs apply_discount, like a discount (requiredPermissions).
  await authorizer.requireAll(requiredPermissions(stored ? storedView(stored) : null, lines, catalogPrice));

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
