/**
 * Runs work for one key at a time in this process, in arrival order; different keys run side by side.
 * Used where optimistic writes of one key would otherwise conflict with each other (settles of one
 * location sign over the same journal head): queueing them here costs nothing in the database, while
 * letting them race costs a failed statement and a new read each time.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
