/**
 * When a table QR session ends by itself (docs/decisions.md "Online and table ordering robustness"):
 * the spec names no end. Every table order is paid when it is placed, so "paid in full" is always true
 * and ends nothing; staff end a session from the back office; and a session nobody has ordered at for
 * `TABLE_SESSION_IDLE_MS` is over, so the next party at the table opens its own instead of joining
 * the previous party's (and seeing its orders).
 */
export const TABLE_SESSION_IDLE_MS = 2 * 3600_000;

/** The last sign of the party at the table: its newest bound order, else the scan that opened the session. */
export function tableSessionIdle(s: { opened_at: Date; last_order_at: Date | null }, now: Date): boolean {
  const last = s.last_order_at && s.last_order_at > s.opened_at ? s.last_order_at : s.opened_at;
  return now.getTime() - last.getTime() >= TABLE_SESSION_IDLE_MS;
}
