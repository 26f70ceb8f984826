import type { Selectable } from 'kysely';
import type { TenantTables } from '@pos/db';
import type { Cents } from '@pos/domain/money';
import type { LineDiscount, OrderLine, OrderModifier } from '@pos/domain/orders/line-totals';
import type { OrderTotals, VatRateTotal } from '@pos/domain/orders/order-totals';
import type { OrderState } from '@pos/domain/orders/order-state';
import type { FrozenTender } from '@pos/tenders';

/** A `pos_orders` row. */
export type OrderRow = Selectable<TenantTables['pos_orders']>;

/** States an order row can hold: the domain's `OrderState` (SETTLING is a settlement in flight with a remote fiscal module). */
export type StoredOrderState = OrderState;

/**
 * An order line as stored in `pos_orders.lines`: the client's intent after server pricing
 * (`unit_price` from the catalog when `price_source` is `catalog`), plus the catalog name, the VAT
 * rate and category frozen when the line was written and its total (VAT included, discount taken off).
 */
export interface StoredLine extends OrderLine {
  readonly name: string;
  readonly vat_rate: number;
  /** The item's catalog category when the line was written: the fiscal department. */
  readonly category?: string | null;
  readonly line_total: Cents;
  readonly modifiers: readonly OrderModifier[];
}

/** What `pos_orders.fiscal` holds once the sale is signed. */
export interface StoredFiscal {
  readonly short_signature?: string;
  readonly digital_signature?: string;
  readonly verification_url?: string;
  readonly [key: string]: unknown;
}

/** A modifier as returned (absent keys left out, never null). */
export interface ModifierResource {
  id?: string;
  name?: string;
  price: Cents;
  qty?: number;
}

/** The order line of the resource (spec 2 "Order line"). */
export interface OrderLineResource {
  uuid: string;
  item_id: string;
  name: string;
  qty: number;
  unit_price: Cents;
  price_source: string;
  modifiers: ModifierResource[];
  discount?: LineDiscount;
  line_total: Cents;
}

/** The bare order resource (spec 2 section 2, CONTRACTS 5). */
export interface OrderResource {
  client_uuid: string;
  version: number;
  state: StoredOrderState;
  fired: boolean;
  order_profile: { behavior: string } | null;
  table_number: string | null;
  lines: OrderLineResource[];
  totals: Omit<OrderTotals, 'by_vat_rate'> & { by_vat_rate: VatRateTotal[] };
  tender: { amount_tendered?: Cents; change?: Cents };
  fiscal: { short_signature?: string; digital_signature?: string; verification_url?: string };
  transaction_id?: string;
  created_at: string;
  updated_at: string;
}

const parse = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** Lines of a row, as stored. */
export function storedLines(row: Pick<OrderRow, 'lines'>): StoredLine[] {
  return parse<StoredLine[]>(row.lines) ?? [];
}

function modifierResource(m: OrderModifier): ModifierResource {
  const out: ModifierResource = { price: m.price };
  if (typeof m.id === 'string') out.id = m.id;
  if (typeof m.name === 'string') out.name = m.name;
  if (typeof m.qty === 'number') out.qty = m.qty;
  return out;
}

function lineResource(l: StoredLine): OrderLineResource {
  const out: OrderLineResource = {
    uuid: l.uuid,
    item_id: l.item_id,
    name: l.name,
    qty: l.qty,
    unit_price: l.unit_price,
    price_source: l.price_source,
    modifiers: (l.modifiers ?? []).map(modifierResource),
    line_total: l.line_total,
  };
  if (l.discount) out.discount = { type: l.discount.type, value: l.discount.value };
  return out;
}

function totalsResource(t: OrderTotals): OrderResource['totals'] {
  return { subtotal: t.subtotal, discount: t.discount, vat: t.vat, total: t.total, by_vat_rate: t.by_vat_rate.map((g) => ({ rate: g.rate, net: g.net, vat: g.vat, gross: g.gross })) };
}

/** Maps a row to the bare resource; internal fields (vat_rate, legs, fdm ref) stay inside. */
export function toOrderResource(row: OrderRow): OrderResource {
  const profile = parse<Record<string, unknown> | null>(row.order_profile);
  const tender = parse<Partial<FrozenTender> | null>(row.tender);
  const fiscal = parse<StoredFiscal | null>(row.fiscal);
  const res: OrderResource = {
    client_uuid: row.id,
    version: row.version,
    state: row.state,
    fired: row.fired,
    order_profile: profile && typeof profile.behavior === 'string' ? { behavior: profile.behavior } : null,
    table_number: row.table_number,
    lines: storedLines(row).map(lineResource),
    totals: totalsResource(parse<OrderTotals>(row.totals)),
    tender: {},
    fiscal: {},
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
  if (tender?.amount_tendered !== undefined) res.tender.amount_tendered = tender.amount_tendered;
  if (tender?.change !== undefined) res.tender.change = tender.change;
  if (fiscal?.short_signature !== undefined) res.fiscal.short_signature = fiscal.short_signature;
  if (fiscal?.digital_signature !== undefined) res.fiscal.digital_signature = fiscal.digital_signature;
  if (fiscal?.verification_url !== undefined) res.fiscal.verification_url = fiscal.verification_url;
  if (row.transaction_id) res.transaction_id = row.transaction_id;
  return res;
}
