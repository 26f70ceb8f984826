/**
 * What authentication reads on every register request (the device principal behind a token, the
 * merchant, the device row, the staff session), kept in the process for a short time so the hot path
 * makes no round trip for it. Entries are grouped by merchant: anything that may change a merchant's
 * authentication state drops that merchant's whole group (here, and in every other API process through
 * `auth-invalidation.ts`). Invalidations are rare (logout, deletion, re-activation, back-office edits)
 * against thousands of register requests, so dropping a group instead of one entry costs little and
 * cannot miss a dependent entry. The TTL only bounds staleness when an invalidation is lost.
 */
export interface AuthCacheOptions {
  /** How long an entry is trusted without a fresh read (default 5 s). 0 disables the cache. */
  readonly ttlMs?: number;
  /** Entries per merchant before its group is dropped wholesale (a bound on memory). */
  readonly maxPerMerchant?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly value: unknown;
  readonly until: number;
}

export class AuthCache {
  private readonly ttlMs: number;
  private readonly maxPerMerchant: number;
  private readonly now: () => number;
  /** merchant id -> key -> entry */
  private readonly groups = new Map<string, Map<string, Entry>>();
  /** raw token -> merchant id: a token is looked up before its merchant is known. */
  private readonly tokens = new Map<string, string>();
  /**
   * False while invalidations cannot be received (subscriber down): then nothing is served from or
   * stored in the cache, so a revocation is never missed.
   */
  private live = true;

  constructor(opts: AuthCacheOptions = {}) {
    this.ttlMs = opts.ttlMs ?? 5000;
    this.maxPerMerchant = opts.maxPerMerchant ?? 20_000;
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.live && this.ttlMs > 0;
  }

  /** Switches serving on or off (the invalidation subscriber's state); either way the content is dropped. */
  setLive(live: boolean): void {
    this.live = live;
    this.clear();
  }

  get<T>(merchantId: string, key: string): T | undefined {
    if (!this.enabled) return undefined;
    const group = this.groups.get(merchantId);
    const e = group?.get(key);
    if (!e) return undefined;
    if (e.until <= this.now()) {
      group!.delete(key);
      return undefined;
    }
    return e.value as T;
  }

  set(merchantId: string, key: string, value: unknown): void {
    if (!this.enabled) return;
    let group = this.groups.get(merchantId);
    if (!group) this.groups.set(merchantId, (group = new Map()));
    if (group.size >= this.maxPerMerchant) group.clear();
    group.set(key, { value, until: this.now() + this.ttlMs });
  }

  /** The merchant a cached token belongs to, if the token was seen and is still cached. */
  tokenMerchant(token: string): string | undefined {
    if (!this.enabled) return undefined;
    return this.tokens.get(token);
  }

  rememberToken(token: string, merchantId: string): void {
    if (!this.enabled) return;
    if (this.tokens.size >= this.maxPerMerchant * 5) this.tokens.clear();
    this.tokens.set(token, merchantId);
  }

  /** Drops one merchant's entries, or everything for null. */
  invalidate(merchantId: string | null): void {
    if (merchantId === null) return this.clear();
    this.groups.delete(merchantId);
    for (const [token, m] of this.tokens) if (m === merchantId) this.tokens.delete(token);
  }

  clear(): void {
    this.groups.clear();
    this.tokens.clear();
  }
}
