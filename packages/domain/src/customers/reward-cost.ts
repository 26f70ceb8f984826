/**
 * An entry of a transaction's stored `offers`. A loyalty reward's entry carries `points`, what the
 * reward cost when the order applied it: the back office may change the cost before the deferred
 * finalisation takes the points, and the order pays what it was priced against. Orders stored before
 * the cost was frozen have no `points`.
 */
export interface StoredOffer {
  readonly id: string;
  readonly discount: number;
  readonly points?: number;
}

/** The well-formed entries of a transaction's stored `offers` (a JSON array); a malformed `points` counts as absent. */
export function storedOffers(offers: unknown): StoredOffer[] {
  if (!Array.isArray(offers)) return [];
  return (offers as { id?: unknown; discount?: unknown; points?: unknown }[]).flatMap((o) => {
    if (typeof o?.id !== 'string' || typeof o.discount !== 'number') return [];
    const points = Number.isSafeInteger(o.points) && (o.points as number) >= 0 ? (o.points as number) : undefined;
    return [points === undefined ? { id: o.id, discount: o.discount } : { id: o.id, discount: o.discount, points }];
  });
}

/** The quote's applied offers as the order stores them: the reward's entry (if it applied) with the points it costs now. */
export function withRewardCost<T extends { readonly id: string }>(offers: readonly T[], reward: { readonly id: string; readonly points: number } | null): (T & { points?: number })[] {
  return offers.map((o) => (reward && o.id === reward.id ? { ...o, points: reward.points } : { ...o }));
}

/**
 * The points a stored entry takes: its frozen cost; for an entry stored before the cost was frozen, the
 * reward's cost now (`current`, by reward id); undefined for an offer that is not a reward.
 */
export function rewardCost(entry: StoredOffer, current: ReadonlyMap<string, number>): number | undefined {
  return entry.points ?? current.get(entry.id);
}
