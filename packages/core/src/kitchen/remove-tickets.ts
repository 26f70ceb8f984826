import type { TenantTx } from '@pos/db';
import { appendKitchenEvents, type KitchenEvent } from './kitchen-events.ts';
import { deletePrintJobs } from '../printers/print-jobs.ts';

/**
 * Removes an order's kitchen tickets because the order itself is deleted (a test-mode transaction):
 * the tickets with their lines (cascade), their stored events and their kitchen print jobs, so no
 * screen or printer keeps an order that no longer exists. Each ticket gets one `removed` event (its
 * `order` is only `{id}`: a screen drops that order), numbered here and published by the caller after
 * the commit. The deleted events leave a gap in the location's numbers, so a screen catching up across
 * them is told to reload its orders (`kitchen.resync`), which no longer include these.
 *
 * Call inside the transaction that deletes the order, after locking the order's row: a ticket being
 * written for it locks that row too (`createTicketsStatement`), so it has committed and is removed here.
 */
export async function removeKitchenTickets(tx: TenantTx, source: 'transaction' | 'pos_order', sourceId: string): Promise<KitchenEvent[]> {
  const tickets = await tx.deleteFrom('kitchen_tickets').where('source', '=', source).where('source_id', '=', sourceId).returning(['id', 'location_id', 'station_id']).execute();
  if (tickets.length === 0) return [];
  const ids = tickets.map((t) => t.id);
  const locationIds = [...new Set(tickets.map((t) => t.location_id))];
  await tx.deleteFrom('kitchen_events').where('location_id', 'in', locationIds).where('ticket_id', 'in', ids).execute();
  await deletePrintJobs(tx, locationIds, ids.map((id) => `ticket:${id}`));
  return appendKitchenEvents(
    tx,
    tickets.map((t) => ({ action: 'removed', location_id: t.location_id, station_id: t.station_id, order: { id: t.id } })),
  );
}
