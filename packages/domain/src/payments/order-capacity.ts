/**
 * Order capacity timing (spec 3 "Transitions": set when a transaction becomes Complete). A completed
 * order occupies one kitchen time slot of its location: the slot it was scheduled for (an online order
 * with `scheduled_for`), else the slot its payment completed in (prepared as soon as paid). Slots are
 * fixed-length windows counted from
 * midnight UTC, so every process and every capture computes the same slot for the same instant.
 */
export const ORDER_CAPACITY_SLOT_MINUTES = 15;

/** The start of the slot holding `at`. */
export function capacitySlotOf(at: Date, slotMinutes: number = ORDER_CAPACITY_SLOT_MINUTES): Date {
  if (!Number.isInteger(slotMinutes) || slotMinutes < 1 || slotMinutes > 1440 || 1440 % slotMinutes !== 0) throw new RangeError('slotMinutes must divide a day');
  const ms = slotMinutes * 60_000;
  return new Date(Math.floor(at.getTime() / ms) * ms);
}
