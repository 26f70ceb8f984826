/**
 * At most `limit` pieces of work at once in this process; the rest wait in arrival order. Used where
 * each piece holds a large, fixed amount of memory (an argon2id hash: 19 MiB), so a flood of requests
 * queues instead of growing the process.
 */
export class Semaphore {
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('semaphore limit must be a positive integer');
  }

  /** Pieces of work running now. */
  get active(): number {
    return this.running;
  }

  /** Pieces of work waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    // A released slot passes straight to the next waiter (`running` stays as it is).
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}
