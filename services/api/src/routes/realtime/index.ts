import { Elysia } from 'elysia';
import { AppError, errors, MESSAGES } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { ApiDeps } from '../../context.ts';
import { checkDeviceKey } from '@pos/core/auth/caller-gates';
import { resolveSecured } from '../../plugins/secured.ts';
import type { RealtimeClient } from '../../realtime/realtime-hub.ts';
import type { Access } from '@pos/core/auth/access';
import { kitchenEventsAfter, latestKitchenSeq } from '@pos/core/kitchen/kitchen-events';
import { subscribableTransaction } from '@pos/core/payments/transaction-subscription';
import { parseCommand, RealtimeEvent, RealtimeQuery } from './realtime.schemas.ts';

/** Per socket, the kitchen feed's catch-up state: live events held during a replay, and the number at or below which they were replayed. */
interface KitchenFeed {
  held: { text: string; seq: number }[] | null;
  floor: number;
  busy: Promise<void>;
}

/** Close codes: 4000 + the HTTP status the same failure would have on a route. */
const closeCode = (e: unknown) => 4000 + (e instanceof AppError ? e.status : 500);

/** Transactions one socket may follow at once; one more is refused without a query. */
export const MAX_FOLLOWED_TRANSACTIONS = 50;

/** The permission of the transaction routes, which the `payments` channel and back-office transaction subscriptions carry too. */
const VIEW_TRANSACTIONS = 'VIEW_TRANSACTIONS';

/** The locations a back-office user's events come from: null for every location (owners, admins). */
const grantOf = (a: Access): ReadonlySet<string> | null => (a.allLocations ? null : a.locationIds);

interface Session {
  client: RealtimeClient;
  deviceId: string | null;
  /** A kitchen screen's station binding, as last checked (null: unbound, or not a kds device). */
  stationId: string | null;
  tdb: TenantDb;
  kitchen: KitchenFeed;
  /** Back office: permissions and grant, as last checked. */
  access: Access | null;
  /** Messages are handled one at a time per socket: a flood of subscriptions queues behind itself. */
  turn: Promise<void>;
  recheck: ReturnType<typeof setInterval> | null;
  /** Messages the client may still send now (refilled at MESSAGE_RATE a second up to MESSAGE_BURST). */
  tokens: number;
  refilled: number;
}

/** Client messages a socket may send a second, and at once: subscriptions are few; more is a flood. No limit with `APP_ENV=local`. */
export const MESSAGE_RATE = 20;
export const MESSAGE_BURST = 60;

/**
 * The real-time channel (DESIGN 2 "Real time"): `GET /api/realtime` upgraded to a WebSocket,
 * authenticated by the device or back-office token (header, or `token` / `api_key` query parameters
 * for browsers). Events come through Redis pub/sub, so any API process serves any screen.
 *
 * Messages: `{"action":"subscribe","channel":"transaction","id":"…"}` (a kiosk only its own
 * transactions; the back office with VIEW_TRANSACTIONS, in its location grant; answered with the
 * current status; at most `MAX_FOLLOWED_TRANSACTIONS` per socket), `{"action":"subscribe","channel":
 * "payments"}` (back office with VIEW_TRANSACTIONS: the payment status changes of its locations),
 * `{"action":"subscribe","channel":"kitchen"}` (kds and pos: kitchen orders of the device's location),
 * `{"action":"subscribe","channel":"location"}` (every screen: updates of the device's location, the
 * granted locations for the back office, e.g. a subscription change). Events are JSON objects with a
 * `type` (`payment.status`, `kitchen.order`, `kitchen.ticket`, `location.updated`). A socket's
 * messages are handled one at a time; its credentials are checked again every
 * `REALTIME_RECHECK_SECONDS` (a refusal closes it with 4000 + the HTTP status). A device moved to
 * another location meanwhile is not closed: from that check on its events are the new location's,
 * and a screen on the kitchen channel is sent `{type:"kitchen.resync", cursor}` (the new location's
 * number) to reload `GET /kds/orders`.
 *
 * Kitchen catch-up: kitchen events (`kitchen.ticket`) carry `seq`, numbered per location without gaps.
 * `{"action":"subscribe","channel":"kitchen","cursor":N}` replays the events after N (oldest first)
 * before any live one; the answer `subscribed` carries `cursor`, the location's latest number. Live
 * events are held while the replay is read, and any event at or below that number is not sent again,
 * so nothing is lost or sent twice. When the events after N are no longer kept (or are too many), the
 * answer is `{type:"kitchen.resync", cursor}`: the screen reloads `GET /kds/orders`.
 */
export function realtimeRoutes(deps: ApiDeps) {
  /** Per socket: the hub's client plus what subscriptions check (device, tenant store, access). */
  const pending = new Map<string, Promise<Session | null>>();
  const recheckMs = Number(deps.config.REALTIME_RECHECK_SECONDS ?? 30) * 1000;
  const types = ['backoffice', 'kiosk', 'kds', 'pos'] as const;
  return new Elysia({ name: 'realtime' }).ws('/realtime', {
    query: RealtimeQuery,
    response: RealtimeEvent,
    detail: { tags: ['Real time'], summary: 'Real-time channel (WebSocket)' },
    open(ws) {
      const headers = ws.data.headers as Record<string, string | undefined>;
      const query = ws.data.query as { token?: string; api_key?: string };
      const authorization = headers.authorization ?? (query.token ? `Bearer ${query.token}` : undefined);
      const authenticate = async (activity: boolean) => {
        const ctx = await resolveSecured(deps, { types, activity }, { headers: { ...headers, authorization }, query: {} });
        if (ctx.device) checkDeviceKey(headers['x-client-api-key'] ?? query.api_key, deps.config.DEVICE_API_KEY);
        return { ctx, access: ctx.auth.type === 'backoffice' ? await ctx.access() : null };
      };
      const end = (e: unknown) => {
        const message = e instanceof AppError ? e.message : MESSAGES.unexpected;
        ws.send(JSON.stringify({ type: 'error', message }));
        ws.close(closeCode(e), message.slice(0, 100));
      };
      const ready = (async (): Promise<Session | null> => {
        try {
          await deps.realtime.start();
          const { ctx, access } = await authenticate(true);
          const kitchen: KitchenFeed = { held: null, floor: 0, busy: Promise.resolve() };
          // Set once the session exists: checks the credentials now (the periodic check's work).
          let checkNow = () => {};
          const client: RealtimeClient = {
            id: ws.id,
            tenantDatabase: ctx.tenant.merchant.tenant_database,
            type: ctx.auth.type as RealtimeClient['type'],
            deviceId: ctx.device?.id ?? null,
            locationId: ctx.device?.location_id ?? null,
            grant: ctx.device ? new Set([ctx.device.location_id]) : access ? grantOf(access) : new Set(),
            transactions: new Map(),
            channels: new Set(),
            send: (text, event) => {
              // The device's tokens were revoked (logout, delete, switch, re-activation): check this
              // socket's now rather than at the next periodic check; the notice itself is not forwarded.
              // The merchant's cached authentication state is dropped first: the route's own
              // invalidation may not have reached this process yet (it is published after the handler).
              if (event?.type === 'device.revoked') {
                deps.authCache.invalidate(ctx.tenant.merchant.id);
                return checkNow();
              }
              const seq = typeof event?.seq === 'number' ? event.seq : null;
              if (seq !== null && kitchen.held) return void kitchen.held.push({ text, seq });
              if (seq !== null && seq <= kitchen.floor) return;
              // Straight to the socket: the text is an event this platform published, already JSON.
              ws.raw.send(text);
            },
          };
          deps.realtime.add(client);
          ws.send(JSON.stringify({ type: 'ready' }));
          const session: Session = { client, deviceId: ctx.device?.id ?? null, stationId: ctx.device?.station_id ?? null, tdb: ctx.tenant.db, kitchen, access, turn: Promise.resolve(), recheck: null, tokens: MESSAGE_BURST, refilled: performance.now() };
          // Credentials are checked again while the socket lives, as every HTTP request checks them: a
          // revoked token, a deleted device, a lapsed subscription or a removed user is closed with the
          // code its request would get; a changed role or grant applies to what is delivered next, and
          // a device moved to another location follows it (`followDevice`).
          // Not queued behind the socket's own messages: a client sending frames must not delay its revocation.
          let checking = false;
          let rerun = false;
          let ended = false;
          checkNow = () => {
            // A check asked for while one runs runs after it: that one may have read the state before a revocation.
            if (checking) return void (rerun = true);
            checking = true;
            void (async () => {
              try {
                const again = await authenticate(false);
                if (again.access) applyAccess(session, again.access, (v) => ws.send(JSON.stringify(v)));
                else if (again.ctx.device) await followDevice(session, again.ctx.device, (v) => ws.send(JSON.stringify(v)));
              } catch (e) {
                // The database or Redis away is not the caller's fault: the socket stays, the next check decides.
                if (!(e instanceof AppError)) return void deps.log.warn('realtime credentials recheck failed', { err: e });
                deps.realtime.remove(client.tenantDatabase, client.id);
                ended = true;
                end(e);
              } finally {
                checking = false;
                if (rerun && !ended) {
                  rerun = false;
                  checkNow();
                }
              }
            })();
          };
          session.recheck = setInterval(checkNow, recheckMs);
          return session;
        } catch (e) {
          if (!(e instanceof AppError)) deps.log.error('realtime open failed', { err: e });
          end(e);
          return null;
        }
      })();
      pending.set(ws.id, ready);
    },
    // Nothing is returned: Elysia would send a handler's return value to the client.
    async message(ws, raw): Promise<void> {
      const session = await pending.get(ws.id);
      if (!session) return;
      // A client sending faster than MESSAGE_RATE a second (bursts of MESSAGE_BURST) is closed: its
      // frames would queue without bound, each with a query, and slow every other caller. Not in the
      // local environment, where rate limiting is off (spec 1 section 8), as `throttle` does.
      if (deps.env !== 'local') {
        const now = performance.now();
        session.tokens = Math.min(MESSAGE_BURST, session.tokens + ((now - session.refilled) / 1000) * MESSAGE_RATE);
        session.refilled = now;
        if (session.tokens < 1) {
          const e = errors.throttled();
          deps.realtime.remove(session.client.tenantDatabase, session.client.id);
          ws.send(JSON.stringify({ type: 'error', message: e.message }));
          return void ws.close(closeCode(e), e.message);
        }
        session.tokens -= 1;
      }
      const run = session.turn.then(() => handle(session, raw, (v) => void ws.send(JSON.stringify(v)), (text) => void ws.send(text)));
      session.turn = run.catch(() => {});
      await run;
    },
    async close(ws) {
      const session = await pending.get(ws.id);
      pending.delete(ws.id);
      if (session) {
        if (session.recheck) clearInterval(session.recheck);
        deps.realtime.remove(session.client.tenantDatabase, session.client.id);
      }
    },
  });

  /** One client message, in its socket's turn. Nothing is returned: Elysia would send a handler's return value. */
  async function handle(session: Session, raw: unknown, reply: (v: unknown) => void, send: (text: string) => void): Promise<void> {
    const { client } = session;
    const cmd = parseCommand(raw);
    if (typeof cmd === 'string') return reply({ type: 'error', message: cmd });
    if (cmd.channel === 'transaction') {
      if (cmd.action === 'unsubscribe') {
        client.transactions.delete(cmd.id);
        return reply({ type: 'unsubscribed', channel: 'transaction', id: cmd.id });
      }
      if (client.type !== 'kiosk' && client.type !== 'backoffice') return reply({ type: 'error', message: MESSAGES.invalidUserType });
      // The back office follows a transaction as its routes show one: with VIEW_TRANSACTIONS, in its grant (else not found).
      if (session.access && !session.access.permissions.has(VIEW_TRANSACTIONS)) return reply({ type: 'error', message: MESSAGES.insufficientPermissions });
      if (client.transactions.size >= MAX_FOLLOWED_TRANSACTIONS && !client.transactions.has(cmd.id)) {
        return reply({ type: 'error', message: `A connection follows at most ${MAX_FOLLOWED_TRANSACTIONS} transactions: unsubscribe from one first.` });
      }
      const t = await subscribableTransaction(session.tdb, cmd.id, client.type === 'kiosk' ? (session.deviceId ?? '') : null);
      if (!t || (client.grant !== null && !client.grant.has(t.location_id))) return reply({ type: 'error', message: errors.notFound('transaction').message });
      client.transactions.set(t.id, t.location_id);
      return reply({ type: 'subscribed', channel: 'transaction', id: t.id, status: t.status });
    }
    // Location updates (subscription changes, issue 13) reach every screen of the location and the back office (its grant).
    const allowed = cmd.channel === 'payments' ? client.type === 'backoffice' : cmd.channel === 'location' ? true : client.type === 'kds' || client.type === 'pos';
    if (!allowed) return reply({ type: 'error', message: MESSAGES.invalidUserType });
    if (cmd.channel === 'payments' && cmd.action === 'subscribe' && !session.access?.permissions.has(VIEW_TRANSACTIONS)) return reply({ type: 'error', message: MESSAGES.insufficientPermissions });
    if (cmd.action === 'unsubscribe') {
      client.channels.delete(cmd.channel);
      return reply({ type: 'unsubscribed', channel: cmd.channel });
    }
    if (cmd.channel !== 'kitchen' || client.locationId === null) {
      client.channels.add(cmd.channel);
      return reply({ type: 'subscribed', channel: cmd.channel });
    }
    // Kitchen: hold live events, read the replay, answer it, then release what was held above it.
    // One catch-up at a time per socket (a second subscribe waits for the first).
    const feed = session.kitchen;
    const run = feed.busy.then(async () => {
      // Read in the feed's turn: a move of the device queued before this subscription applies first.
      const locationId = client.locationId as string;
      feed.held = [];
      client.channels.add('kitchen');
      try {
        const after = cmd.cursor;
        const { events, complete, latest } = await kitchenEventsAfter(session.tdb, locationId, after ?? Number.MAX_SAFE_INTEGER);
        feed.floor = latest;
        if (after === undefined) reply({ type: 'subscribed', channel: 'kitchen', cursor: latest });
        else if (!complete) reply({ type: 'kitchen.resync', cursor: latest });
        else {
          reply({ type: 'subscribed', channel: 'kitchen', cursor: latest, replayed: events.length });
          for (const e of events) send(JSON.stringify(e));
        }
      } catch (e) {
        deps.log.error('kitchen catch-up failed', { err: e });
        reply({ type: 'error', message: MESSAGES.unexpected });
      } finally {
        const held = feed.held ?? [];
        feed.held = null;
        for (const h of held) if (h.seq > feed.floor) send(h.text);
      }
    });
    feed.busy = run.catch(() => {});
    await run;
  }

  /**
   * A device moved to another location (`PUT /back-office/devices/{id}`) while its socket is open: the
   * socket follows it from the next check on, as a back-office user's changed grant applies to what
   * is delivered next (its token is still good: no close). Kitchen numbers are per location, so a
   * screen on the kitchen channel is sent `kitchen.resync` with the new location's cursor and reloads
   * its orders; live events of the new location are held until then. Runs in the kitchen feed's turn.
   * If the cursor cannot be read the device stays where it was and the next check tries again.
   * A kitchen screen bound to another station (`POST /back-office/devices/{id}/station`) is sent
   * `kitchen.resync` the same way: it reads its binding again and reloads the new station's orders
   * (before, it kept the old station's tickets and dropped the new one's until someone reloaded the page).
   */
  function followDevice(session: Session, device: { location_id: string; station_id: string | null }, reply: (v: unknown) => void): Promise<void> {
    const { client, kitchen: feed } = session;
    const { location_id: locationId, station_id: stationId } = device;
    if (client.locationId === locationId && session.stationId === stationId) return Promise.resolve();
    const run = feed.busy.then(async () => {
      const before = { locationId: client.locationId, grant: client.grant, stationId: session.stationId };
      if (before.locationId === locationId && before.stationId === stationId) return;
      const kitchen = client.channels.has('kitchen');
      if (kitchen) feed.held = [];
      client.locationId = locationId;
      client.grant = new Set([locationId]);
      session.stationId = stationId;
      if (!kitchen) return;
      let latest: number;
      try {
        latest = await latestKitchenSeq(session.tdb, locationId);
      } catch (e) {
        // Back where it was; the held events are the new location's, covered by the next check's resync.
        client.locationId = before.locationId;
        client.grant = before.grant;
        session.stationId = before.stationId;
        feed.held = null;
        throw e;
      }
      feed.floor = latest;
      reply({ type: 'kitchen.resync', cursor: latest });
      const held = feed.held ?? [];
      feed.held = null;
      for (const h of held) if (h.seq > feed.floor) client.send(h.text, { seq: h.seq });
    });
    feed.busy = run.catch(() => {});
    return run;
  }
}

/**
 * A back-office socket's permissions and grant, as just read: events of the whole channel now come
 * from the new grant; the `payments` channel without VIEW_TRANSACTIONS, and followed transactions
 * outside the grant, are dropped and the client is told.
 */
function applyAccess(session: Session, access: Access, reply: (v: unknown) => void): void {
  const { client } = session;
  session.access = access;
  client.grant = grantOf(access);
  const canView = access.permissions.has(VIEW_TRANSACTIONS);
  if (client.channels.has('payments') && !canView) {
    client.channels.delete('payments');
    reply({ type: 'unsubscribed', channel: 'payments', reason: MESSAGES.insufficientPermissions });
  }
  for (const [id, locationId] of client.transactions) {
    if (canView && (client.grant === null || client.grant.has(locationId))) continue;
    client.transactions.delete(id);
    reply({ type: 'unsubscribed', channel: 'transaction', id, reason: canView ? errors.notFound('transaction').message : MESSAGES.insufficientPermissions });
  }
}
