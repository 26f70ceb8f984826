import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

/** One connected screen, as the hub routes events to it. */
export interface RealtimeClient {
  readonly id: string;
  readonly tenantDatabase: string;
  readonly type: 'backoffice' | 'kiosk' | 'kds' | 'pos';
  /** Device tokens: the device itself (remote-control commands are addressed to one device); null for the back office. */
  readonly deviceId?: string | null;
  /** Device tokens: the device's location (kitchen events are per location); follows a move of the device while the socket lives. */
  locationId: string | null;
  /**
   * The locations whose events this client may receive: the device's, or the back-office user's grant;
   * null for every location of the merchant (owners). Re-read while the socket lives (`realtime/index.ts`).
   */
  grant: ReadonlySet<string> | null;
  /** Transactions this client follows (a kiosk its own), with their locations. */
  readonly transactions: Map<string, string>;
  /** Channels subscribed as a whole: `payments` (back office), `kitchen` (kds, pos), `location` (location updates: every type). */
  readonly channels: Set<'payments' | 'kitchen' | 'location'>;
  /** `event` is the parsed message (kitchen events carry their `seq`; a device's `device.revoked` notice its `type`). */
  send(text: string, event?: { seq?: unknown; type?: unknown }): void;
}

/** How long a socket's open waits for the hub's first subscription while Redis does not answer. */
export const SUBSCRIBE_WAIT_MS = 3000;

/**
 * Fans real-time events out to this process's sockets. Every API process subscribes to the same Redis
 * pattern (`rt:*`), so an event published by any process (or the worker) reaches every screen
 * wherever it is connected (DESIGN 2 "Real time").
 */
export class RealtimeHub {
  private readonly clients = new Map<string, Map<string, RealtimeClient>>();
  private sub: Redis | null = null;
  /** The `rt:*` subscription, confirmed or still waiting for Redis; null before start() and after stop(). */
  private subscribed: Promise<void> | null = null;
  /** Events delivered to sockets by this process (tests and metrics). */
  delivered = 0;

  constructor(
    private readonly redis: Redis,
    private readonly log: Logger,
    /** How long a socket's open waits for a subscription Redis has not confirmed yet. */
    private readonly waitMs = SUBSCRIBE_WAIT_MS,
  ) {}

  /**
   * Subscribes once; every later call waits for the same subscription. Resolves when Redis has
   * confirmed it, or throws after `waitMs` (the socket being opened is refused) while the
   * subscription stays queued: it completes when Redis is back, and the next socket finds it.
   */
  async start(): Promise<void> {
    if (!this.subscribed) {
      // Unlimited retries on this connection: with the app's fail-fast 2, a subscription sent while
      // Redis was away (or re-sent on a reconnect) was dropped for good and no event came again.
      const sub = this.redis.duplicate({ maxRetriesPerRequest: null, connectionName: 'api-realtime' });
      this.sub = sub;
      sub.on('error', (e) => this.log.warn('realtime subscriber error', { err: e.message }));
      sub.on('pmessage', (_pattern: string, channel: string, message: string) => this.route(channel, message));
      const subscribed = sub.psubscribe('rt:*').then(() => {});
      this.subscribed = subscribed;
      // Only a closed connection refuses it (stop): forget it, so the next start() subscribes again.
      subscribed.catch((e) => {
        if (this.subscribed !== subscribed) return;
        this.log.warn('realtime subscription failed', { err: e instanceof Error ? e.message : String(e) });
        this.subscribed = null;
        this.sub = null;
        sub.disconnect();
      });
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`realtime subscription not confirmed by Redis within ${this.waitMs} ms`)), this.waitMs);
    });
    try {
      await Promise.race([this.subscribed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    const sub = this.sub;
    this.sub = null;
    this.subscribed = null;
    if (sub) {
      if (sub.status === 'ready') await sub.punsubscribe().catch(() => {});
      sub.disconnect();
    }
  }

  add(c: RealtimeClient): void {
    let m = this.clients.get(c.tenantDatabase);
    if (!m) this.clients.set(c.tenantDatabase, (m = new Map()));
    m.set(c.id, c);
  }

  remove(tenantDatabase: string, id: string): void {
    const m = this.clients.get(tenantDatabase);
    m?.delete(id);
    if (m && m.size === 0) this.clients.delete(tenantDatabase);
  }

  /** A Redis message is one event or several, one JSON text per line (`publishAll`), each routed on its own, in order. */
  private route(channel: string, message: string): void {
    const [, tenant, kind] = channel.split(':');
    if (!tenant || !kind) return;
    const clients = this.clients.get(tenant);
    if (!clients) return;
    for (const text of message.split('\n')) this.routeEvent(kind, clients, text);
  }

  private routeEvent(kind: string, clients: Map<string, RealtimeClient>, message: string): void {
    let event: { transaction_id?: unknown; location_id?: unknown; device_id?: unknown; seq?: unknown; type?: unknown };
    try {
      event = JSON.parse(message);
    } catch {
      return;
    }
    for (const c of clients.values()) {
      // A whole channel brings only the events of the client's locations (a followed transaction was checked when followed).
      const inGrant = c.grant === null || (typeof event.location_id === 'string' && c.grant.has(event.location_id));
      const wanted =
        kind === 'payments'
          ? (c.channels.has('payments') && inGrant) || (typeof event.transaction_id === 'string' && c.transactions.has(event.transaction_id))
          : kind === 'kitchen' || kind === 'location'
            ? c.channels.has(kind) && inGrant
            : kind === 'device'
              ? // A remote-control command reaches the one device it names, with no subscription (docs/decisions.md "Device routes").
                typeof event.device_id === 'string' && c.deviceId === event.device_id
              : false;
      if (!wanted) continue;
      try {
        c.send(message, event);
        this.delivered++;
      } catch (e) {
        this.log.warn('realtime send failed', { client: c.id, err: e });
      }
    }
  }
}
