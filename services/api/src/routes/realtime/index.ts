import { Elysia } from 'elysia';
import { AppError } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { ApiDeps } from '../../context.ts';
import { checkDeviceKey } from '@pos/core/auth/caller-gates';
import { resolveSecured } from '../../plugins/secured.ts';
import type { RealtimeClient } from '../../realtime/realtime-hub.ts';
import { kitchenEventsAfter } from '@pos/core/kitchen/kitchen-events';
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

/**
 * The real-time channel (DESIGN 2 "Real time"): `GET /api/realtime` upgraded to a WebSocket,
 * authenticated by the device or back-office token (header, or `token` / `api_key` query parameters
 * for browsers). Events come through Redis pub/sub, so any API process serves any screen.
 *
 * Messages: `{"action":"subscribe","channel":"transaction","id":"…"}` (a kiosk only its own
 * transactions; answered with the current status), `{"action":"subscribe","channel":"payments"}`
 * (back office: every payment status change of the merchant), `{"action":"subscribe","channel":
 * "kitchen"}` (kds and pos: kitchen orders of the device's location), `{"action":"subscribe","channel":
 * "location"}` (every screen: updates of the device's location, all locations for the back office, e.g.
 * a subscription change). Events are JSON objects with a `type` (`payment.status`, `kitchen.order`,
 * `kitchen.ticket`, `location.updated`).
 *
 * Kitchen catch-up: kitchen events (`kitchen.ticket`) carry `seq`, numbered per location without gaps.
 * `{"action":"subscribe","channel":"kitchen","cursor":N}` replays the events after N (oldest first)
 * before any live one; the answer `subscribed` carries `cursor`, the location's latest number. Live
 * events are held while the replay is read, and any event at or below that number is not sent again,
 * so nothing is lost or sent twice. When the events after N are no longer kept (or are too many), the
 * answer is `{type:"kitchen.resync", cursor}`: the screen reloads `GET /kds/orders`.
 */
export function realtimeRoutes(deps: ApiDeps) {
  /** Per socket: the hub's client plus what subscriptions check (device, tenant store). */
  const pending = new Map<string, Promise<{ client: RealtimeClient; deviceId: string | null; tdb: TenantDb; kitchen: KitchenFeed } | null>>();
  return new Elysia({ name: 'realtime' }).ws('/realtime', {
    query: RealtimeQuery,
    response: RealtimeEvent,
    detail: { tags: ['Real time'], summary: 'Real-time channel (WebSocket)' },
    open(ws) {
      const headers = ws.data.headers as Record<string, string | undefined>;
      const query = ws.data.query as { token?: string; api_key?: string };
      const ready = (async () => {
        try {
          await deps.realtime.start();
          const authorization = headers.authorization ?? (query.token ? `Bearer ${query.token}` : undefined);
          const ctx = await resolveSecured(deps, { types: ['backoffice', 'kiosk', 'kds', 'pos'] as const }, { headers: { ...headers, authorization }, query: {} });
          if (ctx.device) checkDeviceKey(headers['x-client-api-key'] ?? query.api_key, deps.config.DEVICE_API_KEY);
          const kitchen: KitchenFeed = { held: null, floor: 0, busy: Promise.resolve() };
          const client: RealtimeClient = {
            id: ws.id,
            tenantDatabase: ctx.tenant.merchant.tenant_database,
            type: ctx.auth.type as RealtimeClient['type'],
            locationId: ctx.device?.location_id ?? null,
            transactions: new Set(),
            channels: new Set(),
            send: (text, event) => {
              const seq = typeof event?.seq === 'number' ? event.seq : null;
              if (seq !== null && kitchen.held) return void kitchen.held.push({ text, seq });
              if (seq !== null && seq <= kitchen.floor) return;
              // Straight to the socket: the text is an event this platform published, already JSON.
              ws.raw.send(text);
            },
          };
          deps.realtime.add(client);
          ws.send(JSON.stringify({ type: 'ready' }));
          return { client, deviceId: ctx.device?.id ?? null, tdb: ctx.tenant.db, kitchen };
        } catch (e) {
          const message = e instanceof AppError ? e.message : 'An unexpected error occurred';
          if (!(e instanceof AppError)) deps.log.error('realtime open failed', { err: e });
          ws.send(JSON.stringify({ type: 'error', message }));
          ws.close(closeCode(e), message.slice(0, 100));
          return null;
        }
      })();
      pending.set(ws.id, ready);
    },
    // Nothing is returned: Elysia would send a handler's return value to the client.
    async message(ws, raw): Promise<void> {
      const reply = (v: unknown) => void ws.send(JSON.stringify(v));
      const session = await pending.get(ws.id);
      if (!session) return;
      const { client } = session;
      const cmd = parseCommand(raw);
      if (typeof cmd === 'string') return reply({ type: 'error', message: cmd });
      if (cmd.channel === 'transaction') {
        if (cmd.action === 'unsubscribe') {
          client.transactions.delete(cmd.id);
          return reply({ type: 'unsubscribed', channel: 'transaction', id: cmd.id });
        }
        if (client.type !== 'kiosk' && client.type !== 'backoffice') return reply({ type: 'error', message: 'Unauthorized: Invalid user type' });
        const t = await subscribableTransaction(session.tdb, cmd.id, client.type === 'kiosk' ? (session.deviceId ?? '') : null);
        if (!t) return reply({ type: 'error', message: 'Unable to locate the transaction you requested.' });
        client.transactions.add(t.id);
        return reply({ type: 'subscribed', channel: 'transaction', id: t.id, status: t.status });
      }
      // Location updates (subscription changes, issue 13) reach every screen of the location and the back office.
      const allowed = cmd.channel === 'payments' ? client.type === 'backoffice' : cmd.channel === 'location' ? true : client.type === 'kds' || client.type === 'pos';
      if (!allowed) return reply({ type: 'error', message: 'Unauthorized: Invalid user type' });
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
      const locationId = client.locationId;
      const run = feed.busy.then(async () => {
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
            for (const e of events) ws.send(JSON.stringify(e));
          }
        } catch (e) {
          deps.log.error('kitchen catch-up failed', { err: e });
          reply({ type: 'error', message: 'An unexpected error occurred' });
        } finally {
          const held = feed.held ?? [];
          feed.held = null;
          for (const h of held) if (h.seq > feed.floor) ws.send(h.text);
        }
      });
      feed.busy = run.catch(() => {});
      await run;
      return;
    },
    async close(ws) {
      const session = await pending.get(ws.id);
      pending.delete(ws.id);
      if (session) deps.realtime.remove(session.client.tenantDatabase, session.client.id);
    },
  });
}
