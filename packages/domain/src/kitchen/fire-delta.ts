/**
 * What a fire of a register order tells the kitchen (docs/decisions.md "Kitchen display"): for each
 * order line, the difference between its quantity now and the quantity earlier fires sent for it (its
 * uuid). A new line or a raised quantity sends the extra; a lowered quantity, or a fired line taken
 * off the order (both need `remove_fired_line`), sends a `VOID` line with the negative quantity the
 * kitchen no longer makes. Lines whose sent quantity matches send nothing. Pure.
 */
export interface FireLine {
  readonly uuid: string;
  readonly item_id: string;
  readonly name: string;
  readonly qty: number;
  readonly modifiers?: unknown;
}

/** A line an earlier fire sent, with the quantity sent for it over all earlier fires. */
export interface SentLine {
  readonly line_ref: string;
  readonly item_id: string;
  readonly name: string;
  readonly qty: number;
  readonly modifiers: unknown;
}

export interface FireDeltaLine {
  readonly position: number;
  readonly uuid: string;
  readonly item_id: string;
  readonly name: string;
  readonly qty: number;
  readonly modifiers: unknown;
}

export const VOID_PREFIX = 'VOID ';

export function kitchenFireDelta(lines: readonly FireLine[], sent: readonly SentLine[]): FireDeltaLine[] {
  const sentOf = new Map(sent.map((s) => [s.line_ref, s]));
  const out: FireDeltaLine[] = [];
  lines.forEach((l, position) => {
    const delta = l.qty - (sentOf.get(l.uuid)?.qty ?? 0);
    if (delta > 0) out.push({ position, uuid: l.uuid, item_id: l.item_id, name: l.name, qty: delta, modifiers: l.modifiers ?? [] });
    else if (delta < 0) out.push({ position, uuid: l.uuid, item_id: l.item_id, name: VOID_PREFIX + l.name, qty: delta, modifiers: l.modifiers ?? [] });
  });
  const present = new Set(lines.map((l) => l.uuid));
  let position = lines.length;
  for (const s of sent) {
    if (present.has(s.line_ref) || s.qty <= 0) continue;
    out.push({ position: position++, uuid: s.line_ref, item_id: s.item_id, name: VOID_PREFIX + s.name, qty: -s.qty, modifiers: s.modifiers });
  }
  return out;
}
