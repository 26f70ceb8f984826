import { describe, expect, test } from 'bun:test';
import { TABLE_SESSION_IDLE_MS, tableSessionIdle } from './table-session-idle.ts';

describe('table session idle rule', () => {
  const opened = new Date('2026-12-01T12:00:00Z');
  const at = (ms: number) => new Date(opened.getTime() + ms);
  test('idle once nothing was ordered for the idle time since the opening or the last order', () => {
    expect(tableSessionIdle({ opened_at: opened, last_order_at: null }, at(TABLE_SESSION_IDLE_MS - 1))).toBe(false);
    expect(tableSessionIdle({ opened_at: opened, last_order_at: null }, at(TABLE_SESSION_IDLE_MS))).toBe(true);
    expect(tableSessionIdle({ opened_at: opened, last_order_at: at(3600_000) }, at(TABLE_SESSION_IDLE_MS + 1000))).toBe(false);
    expect(tableSessionIdle({ opened_at: opened, last_order_at: at(3600_000) }, at(3600_000 + TABLE_SESSION_IDLE_MS))).toBe(true);
    // An order bound from before the opening (a paid order bound later) does not age the session.
    expect(tableSessionIdle({ opened_at: opened, last_order_at: at(-10 * 3600_000) }, at(60_000))).toBe(false);
  });
});
