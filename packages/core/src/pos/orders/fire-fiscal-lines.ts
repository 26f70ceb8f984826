import { VAT_RATES, type FiscalLine, type OrderLineInput } from '@pos/fiscal';
import type { FireDeltaLine } from '@pos/domain/kitchen/fire-delta';
import { fiscalLineOf } from './settle-order.ts';
import type { StoredLine } from './order-resource.ts';

/**
 * The lines of a fire's order event (signOrder, docs/decisions.md "Fires are signed"): the kitchen
 * delta line by line, priced like the sale would price it (`fiscalLineOf`), with the delta's signed
 * quantity (a VOID line is negative, a CORRECTION). A line's price comes from the order line of the
 * same uuid; a fired line no longer on the order (taken off, so only its VOID is left) is priced as
 * the latest earlier signed order event of this order signed that item (so is a VOID line whose order
 * line now holds another item or other modifiers: the kitchen takes back what it was sent); a line no
 * earlier event signed was never registered, so its correction is not either. Pure.
 */
/** True when the order line still is what the VOID line takes back (same item and modifiers). */
function sameAsFired(line: StoredLine, d: FireDeltaLine): boolean {
  return line.item_id === d.item_id && JSON.stringify(line.modifiers ?? []) === JSON.stringify(d.modifiers ?? []);
}

export function fireFiscalLines(delta: readonly FireDeltaLine[], orderLines: readonly StoredLine[], earlier: readonly FiscalLine[]): OrderLineInput[] {
  const byUuid = new Map(orderLines.map((l) => [l.uuid, l]));
  const out: OrderLineInput[] = [];
  for (const d of delta) {
    const line = byUuid.get(d.uuid);
    if (line && (d.qty > 0 || sameAsFired(line, d))) {
      const f = fiscalLineOf(line);
      out.push({ productId: f.productId, productName: f.productName, departmentId: f.departmentId, departmentName: f.departmentName, quantity: d.qty, unitPrice: f.unitPrice, vatRate: f.vatRate });
      continue;
    }
    const signed = d.qty < 0 ? earlier.findLast((e) => e.productId === d.item_id && e.quantity > 0) : undefined;
    const label = signed?.vats[0]?.label;
    if (!signed || !label) continue;
    out.push({
      productId: signed.productId,
      productName: signed.productName,
      departmentId: signed.departmentId,
      departmentName: signed.departmentName,
      quantity: d.qty,
      unitPrice: signed.unitPrice,
      vatRate: VAT_RATES[label],
    });
  }
  return out;
}
