/**
 * Numbering of kitchen events (pure). Events are numbered per location without gaps; a batch of
 * events moves each location's counter once by its number of events, so the batch's events of a
 * location take the numbers `last - n + 1 .. last` in the order they were given.
 */

/** How many events each location has, locations in order of first appearance. */
export function eventCountsByLocation(locationIds: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of locationIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}

/** Each event's place among its location's events (1, 2, 3, ... per location, in the order given). */
export function placesInLocation(locationIds: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return locationIds.map((id) => {
    const k = (seen.get(id) ?? 0) + 1;
    seen.set(id, k);
    return k;
  });
}

/**
 * The number of each event, given each location's counter after the batch moved it (`last`) and the
 * events' locations in order: its location's `last - n + k`, for the k-th of the location's n events.
 * Every location of `locationIds` must be in `lastByLocation`.
 */
export function numberEvents(locationIds: readonly string[], lastByLocation: ReadonlyMap<string, number>): number[] {
  const counts = eventCountsByLocation(locationIds);
  const places = placesInLocation(locationIds);
  return locationIds.map((id, i) => {
    const last = lastByLocation.get(id);
    if (last === undefined) throw new Error(`no kitchen event counter for location ${id}`);
    return last - counts.get(id)! + places[i]!;
  });
}

/** True when one of the numbers `last - n + 1 .. last` is a multiple of `every` (a pruning is due). */
export function crossesMultiple(last: number, n: number, every: number): boolean {
  return n > 0 && Math.floor(last / every) > Math.floor((last - n) / every);
}
