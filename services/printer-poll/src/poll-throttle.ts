import type Redis from 'ioredis';
import type { ThrottleRule } from '@pos/kernel';

/**
 * The `printer-poll` throttle, counted in the process and shared through Redis in batches: a poll is
 * decided in memory (hits synced from every process so far + this process's hits since), and every
 * `syncMs` the local hits are added to Redis counters of clock-aligned windows (INCRBY, one
 * pipeline; aligned, unlike `hitThrottle`'s, so every process agrees on the window without a round trip). One process counts exactly; with N processes, each learns the others'
 * hits at its next sync after a hit of its own, so up to N - 1 polls a sync interval may pass beyond
 * the limit before all of them refuse. An idle poll then costs no Redis
 * round trip (bench `printer`).
 */
export class PollThrottle {
  private readonly windows = new Map<string, { start: number; local: number; synced: number }>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly rule: ThrottleRule,
  ) {}

  private key(subject: string, start: number) {
    return `throttle:${this.rule.name}:${this.rule.windowSeconds}:${subject}:${start}`;
  }

  hit(subject: string, nowMs = Date.now()): { allowed: boolean; retryAfter: number } {
    const windowMs = this.rule.windowSeconds * 1000;
    const start = Math.floor(nowMs / windowMs) * windowMs;
    let w = this.windows.get(subject);
    if (!w || w.start !== start) {
      w = { start, local: 0, synced: 0 };
      this.windows.set(subject, w);
    }
    w.local++;
    return { allowed: w.synced + w.local <= this.rule.limit, retryAfter: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
  }

  /** Whether a hit now would be allowed, without counting one. */
  peek(subject: string, nowMs = Date.now()): { allowed: boolean; retryAfter: number } {
    const windowMs = this.rule.windowSeconds * 1000;
    const start = Math.floor(nowMs / windowMs) * windowMs;
    const w = this.windows.get(subject);
    const used = w && w.start === start ? w.synced + w.local : 0;
    return { allowed: used < this.rule.limit, retryAfter: Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000)) };
  }

  /** Adds this process's hits to Redis and learns the totals of every process. */
  async sync(nowMs = Date.now()): Promise<void> {
    const windowMs = this.rule.windowSeconds * 1000;
    const current = Math.floor(nowMs / windowMs) * windowMs;
    const batch: [string, { start: number; local: number; synced: number }, number][] = [];
    for (const [subject, w] of this.windows) {
      if (w.start < current) {
        this.windows.delete(subject);
        continue;
      }
      if (w.local > 0) batch.push([subject, w, w.local]);
    }
    if (!batch.length) return;
    const p = this.redis.pipeline();
    for (const [subject, w, n] of batch) {
      const key = this.key(subject, w.start);
      p.incrby(key, n).pexpire(key, windowMs + 1000);
    }
    const results = (await p.exec()) ?? [];
    batch.forEach(([, w, n], i) => {
      const total = Number(results[i * 2]?.[1] ?? 0);
      w.local -= n;
      w.synced = total;
    });
  }

  start(syncMs = 250): void {
    this.timer = setInterval(() => void this.sync().catch(() => {}), syncMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sync().catch(() => {});
  }
}
