/**
 * Fulfillment buckets of the omni-channel order stream (spec 2 "Omni-channel order stream"). The
 * assignment is first match wins, in this order: delivery, self-serve, dine-in, pickup. A register's
 * own order never resolves to self-serve or delivery.
 */
export const FULFILLMENT_BUCKETS = ['dine_in', 'self_serve', 'pickup', 'delivery'] as const;
export type FulfillmentBucket = (typeof FULFILLMENT_BUCKETS)[number];

/** The order channels of the stream as the register shows them (Title Case labels). */
/**
 * The stream's channel labels. `delivery` (the marketplace orders of delivery-a and delivery-b) has one
 * too: it was sent as the raw word `delivery` in `channels`, which the `channel` filter then refused
 * (422), so the register's tab for it could not list anything.
 */
export const CHANNEL_LABELS = { kiosk: 'Kiosk', online_ordering: 'Online Ordering', table_qr: 'Table Qr Ordering', delivery: 'Delivery' } as const;
export type ChannelLabel = (typeof CHANNEL_LABELS)[keyof typeof CHANNEL_LABELS];

export type BucketSubject =
  /** An order of another channel: its channel label and dining option as the channel sent them. */
  | { readonly kind: 'channel'; readonly channel: string; readonly dining_option: string | null }
  /** The register's own order: its order profile behaviour (`dine_in`, `take_away`). */
  | { readonly kind: 'register'; readonly behavior: string | null };

const DINE_IN = new Set(['for here', 'dine in']);
const PICKUP = new Set(['pickup', 'takeout', 'takeaway']);

/**
 * The bucket of one order. An order no rule matches: a channel order is pickup (it leaves the
 * building with the customer), a register order without a behaviour is dine-in (the counter default).
 */
export function fulfillmentBucket(o: BucketSubject): FulfillmentBucket {
  if (o.kind === 'register') return o.behavior === 'take_away' ? 'pickup' : 'dine_in';
  const dining = (o.dining_option ?? '').trim().toLowerCase();
  if (dining === 'delivery') return 'delivery';
  if (o.channel === 'Kiosk' || o.channel === 'Table Qr Ordering') return 'self_serve';
  if (DINE_IN.has(dining)) return 'dine_in';
  if (PICKUP.has(dining)) return 'pickup';
  return 'pickup';
}

/** Counts as the stream answers them: a plain object, keys sorted, zero counts left out (`{}` when empty). */
export function sortedCounts(counts: ReadonlyMap<string, number> | Record<string, number>): Record<string, number> {
  const entries = counts instanceof Map ? [...counts.entries()] : Object.entries(counts);
  const out: Record<string, number> = {};
  for (const [k, n] of entries.filter(([, n]) => n > 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = n;
  return out;
}
