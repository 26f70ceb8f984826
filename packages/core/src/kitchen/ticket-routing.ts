import type { StationRow } from './stations.ts';
import { stationsForCategory } from './stations.ts';
import type { KitchenOrderInput } from './tickets.ts';

export interface RoutedTicket {
  readonly order: KitchenOrderInput;
  readonly stationId: string;
  /** The order's lines this station gets, in the order's line order. */
  readonly lines: KitchenOrderInput['lines'][number][];
}

/**
 * The tickets orders make (pure): per order, one per station one of its lines is routed to (by
 * `stationsForCategory` over the stations of the order's location, or the line's own `station_ids`),
 * stations in the order their first line reaches them. Orders in the order given; `stations` are every order's location's, in id order.
 */
export function routeKitchenTickets(orders: readonly KitchenOrderInput[], stations: readonly Pick<StationRow, 'id' | 'location_id' | 'category_ids' | 'is_fallback'>[]): RoutedTicket[] {
  const stationsAt = new Map<string, Pick<StationRow, 'id' | 'location_id' | 'category_ids' | 'is_fallback'>[]>();
  for (const s of stations) {
    const list = stationsAt.get(s.location_id);
    if (list) list.push(s);
    else stationsAt.set(s.location_id, [s]);
  }
  const tickets: RoutedTicket[] = [];
  for (const order of orders) {
    const here = stationsAt.get(order.locationId) ?? [];
    const byStation = new Map<string, KitchenOrderInput['lines'][number][]>();
    for (const line of order.lines) {
      for (const stationId of stationsOf(here, line)) {
        const list = byStation.get(stationId);
        if (list) list.push(line);
        else byStation.set(stationId, [line]);
      }
    }
    for (const [stationId, lines] of byStation) tickets.push({ order, stationId, lines });
  }
  return tickets;
}

/** A line's stations: those it names (the ones still at the location), else those serving its category. */
function stationsOf(here: readonly Pick<StationRow, 'id' | 'category_ids' | 'is_fallback'>[], line: KitchenOrderInput['lines'][number]): string[] {
  if (!line.station_ids) return stationsForCategory(here, line.category_id);
  return line.station_ids.filter((id) => here.some((s) => s.id === id));
}
