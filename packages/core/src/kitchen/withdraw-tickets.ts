import type { TenantTx } from '@pos/db';
import { VOID_PREFIX } from '@pos/domain/kitchen/fire-delta';
import { appendKitchenEvents, type KitchenEvent } from './kitchen-events.ts';
import { ticketViewsOf } from './kds-orders.ts';
import { queueKitchenTickets } from '../printers/print-dispatch.ts';

/**
 * Withdraws a paid order's kitchen tickets because the order was cancelled after they were written (a
 * marketplace cancelling a paid order): nothing is to be cooked. There is no ticket status for
 * cancelled, so each open ticket is completed (it leaves `GET /kds/orders` and the open counts) with a
 * `cancelled` kitchen event carrying the completed ticket (a screen drops a completed order), numbered
 * here and published by the caller after the commit. The tickets stay, with their events: the order
 * existed. Every ticket's station with a kitchen printer gets a VOID ticket (`void:<ticket id>`), its
 * lines as a register void prints them (`-2 x VOID Espresso`), `note` under them: a cook may be making it,
 * or have made it, from the paper ticket.
 *
 * Call once per order (the caller records that it ran), inside the transaction that cancels the order,
 * after locking the order's row `FOR UPDATE`: the post-capture ticket write key-share locks that row and
 * writes no ticket for a cancelled order (`createTicketsStatement`), so every ticket there will ever be
 * is read here.
 */
export async function withdrawKitchenTickets(tx: TenantTx, transactionId: string, now: Date, note: string): Promise<KitchenEvent[]> {
  const tickets = await tx.selectFrom('kitchen_tickets').selectAll().where('source', '=', 'transaction').where('source_id', '=', transactionId).orderBy('id').forUpdate().execute();
  if (tickets.length === 0) return [];
  const ids = tickets.map((t) => t.id);
  const lines = await tx.selectFrom('kitchen_ticket_lines').selectAll().where('ticket_id', 'in', ids).orderBy('ticket_id').orderBy('position').execute();
  const open = tickets.filter((t) => t.status !== 'Complete');
  if (open.length > 0) await tx.updateTable('kitchen_tickets').set({ status: 'Complete', completed_at: now, updated_at: now }).where('id', 'in', open.map((t) => t.id)).execute();
  const withdrawn = ticketViewsOf(
    open.map((t) => ({ ...t, status: 'Complete' as const, completed_at: now, updated_at: now })),
    lines,
  );
  const events = await appendKitchenEvents(
    tx,
    withdrawn.map((v, i) => ({ action: 'cancelled', location_id: open[i]!.location_id, station_id: v.station_id, order: v as unknown as KitchenEvent['order'] })),
  );
  await queueKitchenTickets(
    tx,
    tickets.map((t) => ({
      id: t.id,
      station_id: t.station_id,
      location_id: t.location_id,
      order_no: t.order_no,
      at: now,
      lines: lines.filter((l) => l.ticket_id === t.id).map((l) => ({ qty: -l.qty, name: VOID_PREFIX + l.name, modifiers: l.modifiers })),
      source_key: `void:${t.id}`,
      note,
    })),
  );
  return events;
}
