import { sql } from 'kysely';
import { isTenantSchemaName, type CentralDb } from '@pos/db';
import { listenChannels } from '@pos/db/listen';
import { hashPrinterToken, PRINTER_TOKENS_CHANNEL, resolvePrinterToken, type PrinterTokenOwner } from '@pos/core/printers/printer-tokens';
import { PRINT_JOBS_CHANNEL } from '@pos/core/printers/print-jobs';

/**
 * What one poll-service process keeps in memory so an idle poll touches no database (issue 15, bench
 * `printer`): token owners (dropped when a token of that printer is minted or revoked: NOTIFY
 * `printer_tokens`), printers known to have nothing to print (dropped when a job is queued or put
 * back: NOTIFY `print_jobs`), and the last-poll stamps, written in one statement per tenant each
 * second. Without a LISTEN connection (`listen` not called) nothing is cached: every poll reads.
 */
export class PollState {
  private readonly tokens = new Map<string, { owner: PrinterTokenOwner; until: number }>();
  /** Printer id -> until when its queue is taken as empty (a re-check at least once a minute: a safety net). */
  private readonly idle = new Map<string, number>();
  /** Printer id -> number of the last notification about it; `notices` counts them all. */
  private readonly noticed = new Map<string, number>();
  private notices = 0;
  /** Value of `notices` at the last reset (a reconnect: notices may have been missed). */
  private resetAt = 0;
  /** Notices numbered up to this were forgotten (`pruneNotices`); `pruneFloor` is where the next prune cuts. */
  private prunedAt = 0;
  private pruneFloor = 0;
  private pruneTimer: ReturnType<typeof setInterval> | null = null;
  private readonly stamps = new Map<string, { schema: string; printerId: string; at: Date; tokenHash: string }>();
  private listening = false;
  private listener: { stop: () => Promise<void> } | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly db: CentralDb,
    private readonly tokenTtlMs = 30_000,
    private readonly idleTtlMs = 60_000,
  ) {}

  /** Starts the LISTEN connection and the stamp flush; caching is on once it listens. */
  async listen(url: string, flushMs = 1000, pruneMs = 60_000): Promise<void> {
    const l = listenChannels(
      url,
      [PRINT_JOBS_CHANNEL, PRINTER_TOKENS_CHANNEL],
      (channel, printerId) => {
        this.noticed.set(printerId, ++this.notices);
        this.idle.delete(printerId);
        if (channel === PRINTER_TOKENS_CHANNEL) for (const [k, v] of this.tokens) if (v.owner.printer_id === printerId) this.tokens.delete(k);
      },
      () => this.reset(),
    );
    this.listener = l;
    await l.ready;
    this.listening = true;
    this.timer = setInterval(() => void this.flush().catch(() => {}), flushMs);
    this.pruneTimer = setInterval(() => this.pruneNotices(), pruneMs);
  }

  /**
   * Forgets the per-printer notices that came in before the previous prune (a minute ago): only reads in
   * flight look at them, and every printer of every tenant notified kept an entry for the life of the
   * process. A read whose mark is older than what was forgotten is taken as changed (`changedSince`):
   * its answer serves that poll and is not remembered.
   */
  pruneNotices(): void {
    const below = this.pruneFloor;
    if (below > this.prunedAt) {
      for (const [printerId, n] of this.noticed) if (n <= below) this.noticed.delete(printerId);
      this.prunedAt = below;
    }
    this.pruneFloor = this.notices;
  }

  /** How many printers' notices are remembered (for tests). */
  get noticedCount(): number {
    return this.noticed.size;
  }

  reset(): void {
    this.tokens.clear();
    this.idle.clear();
    this.noticed.clear();
    this.resetAt = ++this.notices;
  }

  /** True when a notification about the printer (or a reset) came in after `mark` was taken. */
  private changedSince(printerId: string, mark: number): boolean {
    return this.resetAt > mark || this.prunedAt > mark || (this.noticed.get(printerId) ?? -1) > mark;
  }

  async resolve(token: string | undefined): Promise<PrinterTokenOwner | null> {
    if (!token || token.length > 200) return null;
    if (!this.listening) return resolvePrinterToken(this.db, token);
    const key = hashPrinterToken(token);
    const hit = this.tokens.get(key);
    if (hit && hit.until > Date.now()) return hit.owner;
    const mark = this.notices;
    const owner = await resolvePrinterToken(this.db, token);
    // A token minted or revoked while the read was in flight: the answer is used once, not remembered.
    if (owner && !this.changedSince(owner.printer_id, mark)) {
      if (this.tokens.size > 200_000) this.tokens.clear();
      this.tokens.set(key, { owner, until: Date.now() + this.tokenTtlMs });
    } else this.tokens.delete(key);
    return owner;
  }

  /**
   * True when the token is a live printer token this process resolved, and no notice about its printer
   * (or a reset) has dropped it since (only while listening). Its owner may be due for a re-read
   * (`resolve` does it); what is known is that it is no guess, so its address's count of made-up tokens
   * must not hold it back: with the owner's 30 s lifetime here, a printer sharing an address with junk
   * pollers was refused from the first poll after its entry aged until the junk stopped.
   */
  knows(token: string | undefined): boolean {
    if (!this.listening || !token || token.length > 200) return false;
    return this.tokens.has(hashPrinterToken(token));
  }

  /** True when the printer is known to have nothing to print (only while listening). */
  isIdle(printerId: string, nowMs = Date.now()): boolean {
    const until = this.listening ? this.idle.get(printerId) : undefined;
    return until !== undefined && until > nowMs;
  }

  /** Taken before reading a queue: `markIdle` with it refuses when a notification came in meanwhile. */
  mark(): number {
    return this.notices;
  }

  /** The queue read after `mark` was empty; unless a job was announced since, remember it for a while. */
  markIdle(printerId: string, mark: number, nowMs = Date.now()): void {
    if (!this.listening || this.changedSince(printerId, mark)) return;
    if (this.idle.size > 200_000) this.idle.clear();
    this.idle.set(printerId, nowMs + this.idleTtlMs);
  }

  /** Records a poll; without a LISTEN connection it is written at once. */
  async stamp(owner: PrinterTokenOwner, at: Date, tokenHash: string): Promise<void> {
    this.stamps.set(owner.printer_id, { schema: owner.tenant_database, printerId: owner.printer_id, at, tokenHash });
    if (!this.listening) await this.flush();
  }

  /**
   * Writes the pending stamps: one statement per tenant. A configured printer that polled is paired only
   * if the token it polled with is still its token: a stamp can wait up to a flush interval, and a token
   * minted meanwhile (rotation, a new pairing) leaves the printer configured until it polls with the new one.
   */
  async flush(): Promise<void> {
    if (this.stamps.size === 0) return;
    const all = [...this.stamps.values()];
    this.stamps.clear();
    const bySchema = new Map<string, { printerId: string; at: Date; tokenHash: string }[]>();
    for (const s of all) bySchema.set(s.schema, [...(bySchema.get(s.schema) ?? []), s]);
    for (const [schema, rows] of bySchema) {
      if (!isTenantSchemaName(schema)) continue;
      const values = sql.join(rows.map((r) => sql`(${r.printerId}::uuid, ${r.at}::timestamptz, ${r.tokenHash}::text)`));
      // One tenant failing (a merchant just dropped) does not cost the others their stamps.
      await sql`update ${sql.id(schema, 'printers')} p set last_poll_at = greatest(p.last_poll_at, v.at),
          state = case when p.state = 'configured' and exists (select 1 from ${sql.id('public', 'printer_tokens')} t where t.token_hash = v.token_hash and t.printer_id = p.id) then 'paired' else p.state end
        from (values ${values}) as v(id, at, token_hash) where p.id = v.id`
        .execute(this.db)
        .catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    await this.listener?.stop();
    await this.flush().catch(() => {});
  }
}
