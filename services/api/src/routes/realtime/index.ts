import { Elysia } from 'elysia';
import { AppError } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { ApiDeps } from '../../context.ts';
import { checkDeviceKey } from '../../middleware/device-key.ts';
import { resolveSecured } from '../../plugins/secured.ts';
import type { RealtimeClient } from '../../realtime/realtime-hub.ts';
import { parseCommand, RealtimeEvent, RealtimeQuery } from './realtime.schemas.ts';

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
 * "kitchen"}` (kds and pos: kitchen orders of the device's location). Events are JSON objects with a
 * `type` (`payment.status`, `kitchen.order`).
 */
export function realtimeRoutes(deps: ApiDeps) {
  /** Per socket: the hub's client plus what subscriptions check (device, tenant store). */
  const pending = new Map<string, Promise<{ client: RealtimeClient; deviceId: string | null; tdb: TenantDb } | null>>();
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
          const client: RealtimeClient = {
            id: ws.id,
            tenantDatabase: ctx.tenant.merchant.tenant_database,
            type: ctx.auth.type as RealtimeClient['type'],
            locationId: ctx.device?.location_id ?? null,
            transactions: new Set(),
            channels: new Set(),
            send: (text) => ws.send(text),
          };
          deps.realtime.add(client);
          ws.send(JSON.stringify({ type: 'ready' }));
          return { client, deviceId: ctx.device?.id ?? null, tdb: ctx.tenant.db };
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
        let q = session.tdb.selectFrom('transactions').select(['id', 'status', 'device_id']).where('id', '=', cmd.id);
        if (client.type === 'kiosk') q = q.where('device_id', '=', session.deviceId ?? '');
        else if (client.type !== 'backoffice') return reply({ type: 'error', message: 'Unauthorized: Invalid user type' });
        const t = await q.executeTakeFirst();
        if (!t) return reply({ type: 'error', message: 'Unable to locate the transaction you requested.' });
        client.transactions.add(t.id);
        return reply({ type: 'subscribed', channel: 'transaction', id: t.id, status: t.status });
      }
      const allowed = cmd.channel === 'payments' ? client.type === 'backoffice' : client.type === 'kds' || client.type === 'pos';
      if (!allowed) return reply({ type: 'error', message: 'Unauthorized: Invalid user type' });
      if (cmd.action === 'subscribe') client.channels.add(cmd.channel);
      else client.channels.delete(cmd.channel);
      return reply({ type: cmd.action === 'subscribe' ? 'subscribed' : 'unsubscribed', channel: cmd.channel });
    },
    async close(ws) {
      const session = await pending.get(ws.id);
      pending.delete(ws.id);
      if (session) deps.realtime.remove(session.client.tenantDatabase, session.client.id);
    },
  });
}
