/**
 * What a fire of a register order tells the kitchen (docs/decisions.md "Kitchen display"): for each
 * order line, the difference between its quantity now and the quantity earlier fires sent for it (its
 * uuid). A new line or a raised quantity sends the extra; a lowered quantity, or a fired line taken
 * off the order (both need `remove_fired_line`), sends a `VOID` line with the negative quantity the
 * kitchen no longer makes. A fired line whose item or modifiers changed voids what was sent and sends
 * the line as it is now. Lines whose sent quantity matches send nothing. Pure.
 */
export interface FireLine {
  readonly uuid: string;
  readonly item_id: string;
  readonly name: string;
  readonly qty: number;
  readonly modifiers?: unknown;
}

/** A dish (line uuid, item, modifiers) earlier fires sent, with the quantity sent for it over all of them. */
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

/**
 * What a line is to the kitchen: its uuid, item and modifiers (key order aside). A fired line whose item
 * or modifiers change is another dish: the old one is voided and the new one sent, not a quantity change.
 */
export function dishKey(uuid: string, itemId: string, modifiers: unknown): string {
  return `${uuid}|${itemId}|${stableJson(modifiers ?? [])}`;
}

/** JSON with object keys sorted (a jsonb column gives them back in its own order). */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .filter((k) => o[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** `sent` holds one entry per dish (uuid, item, modifiers) an earlier fire sent, with its net quantity. */
export function kitchenFireDelta(lines: readonly FireLine[], sent: readonly SentLine[]): FireDeltaLine[] {
  const sentOf = new Map(sent.map((s) => [dishKey(s.line_ref, s.item_id, s.modifiers), s]));
  const out: FireDeltaLine[] = [];
  const present = new Set<string>();
  lines.forEach((l, position) => {
    const key = dishKey(l.uuid, l.item_id, l.modifiers);
    present.add(key);
    const delta = l.qty - (sentOf.get(key)?.qty ?? 0);
    if (delta > 0) out.push({ position, uuid: l.uuid, item_id: l.item_id, name: l.name, qty: delta, modifiers: l.modifiers ?? [] });
    else if (delta < 0) out.push({ position, uuid: l.uuid, item_id: l.item_id, name: VOID_PREFIX + l.name, qty: delta, modifiers: l.modifiers ?? [] });
  });
  let position = lines.length;
  for (const s of sent) {
    if (present.has(dishKey(s.line_ref, s.item_id, s.modifiers)) || s.qty <= 0) continue;
    out.push({ position: position++, uuid: s.line_ref, item_id: s.item_id, name: VOID_PREFIX + s.name, qty: -s.qty, modifiers: s.modifiers });
  }
  return out;
}
