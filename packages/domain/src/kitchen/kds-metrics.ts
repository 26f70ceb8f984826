import { formatInTimeZone } from 'date-fns-tz';

/**
 * Kitchen figures from recorded state-change times (pure). Preparation time of a ticket: from the
 * moment it reached the kitchen (`queued_at`) to the moment it was marked ready (`ready_at`; a ticket
 * bumped straight to complete has both stamped at that instant). A ticket is late when its
 * preparation took, or an open ticket has been waiting, longer than the late threshold.
 */
export interface KitchenTimes {
  readonly queuedAt: Date;
  readonly readyAt: Date | null;
}

export interface PrepStats {
  readonly orders: number;
  /** Mean preparation time in whole seconds (rounded); null without orders. */
  readonly average_prep_seconds: number | null;
  /** 90th percentile (nearest rank) in whole seconds; null without orders. */
  readonly p90_prep_seconds: number | null;
  readonly late_orders: number;
}

/** Nearest-rank percentile of sorted values (p in 0-100]. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function prepStats(tickets: readonly KitchenTimes[], lateAfterMs: number): PrepStats {
  const ms = tickets.filter((t) => t.readyAt !== null).map((t) => Math.max(0, t.readyAt!.getTime() - t.queuedAt.getTime()));
  ms.sort((a, b) => a - b);
  const sum = ms.reduce((a, b) => a + b, 0);
  return {
    orders: ms.length,
    average_prep_seconds: ms.length ? Math.round(sum / ms.length / 1000) : null,
    p90_prep_seconds: ms.length ? Math.round(percentile(ms, 90)! / 1000) : null,
    late_orders: ms.filter((m) => m > lateAfterMs).length,
  };
}

/** The local hour (0-23) of an instant in a time zone. */
export function localHour(instant: Date, timeZone: string): number {
  return Number(formatInTimeZone(instant, timeZone, 'H'));
}

/** Per local hour of becoming ready (only hours with orders, ascending), each with its stats. */
export function prepStatsByHour(tickets: readonly KitchenTimes[], timeZone: string, lateAfterMs: number): ({ hour: number } & PrepStats)[] {
  const byHour = new Map<number, KitchenTimes[]>();
  for (const t of tickets) {
    if (t.readyAt === null) continue;
    const h = localHour(t.readyAt, timeZone);
    const list = byHour.get(h) ?? [];
    list.push(t);
    byHour.set(h, list);
  }
  return [...byHour.keys()].sort((a, b) => a - b).map((hour) => ({ hour, ...prepStats(byHour.get(hour)!, lateAfterMs) }));
}

/** Open tickets (not ready yet) waiting longer than the threshold at `now`. */
export function lateOpenCount(open: readonly KitchenTimes[], now: Date, lateAfterMs: number): number {
  return open.filter((t) => t.readyAt === null && now.getTime() - t.queuedAt.getTime() > lateAfterMs).length;
}
