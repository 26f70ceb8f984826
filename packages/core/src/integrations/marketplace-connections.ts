import { EXTERNAL_ID_MAX, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { locationConnection, type LocationConnectionRow } from './connections.ts';
import { disconnectUnderClaim } from './connect-claims.ts';
import type { LocationScope } from './delivery-a.ts';

/**
 * What delivery-a and delivery-b share about their connection (one marketplace store per location,
 * central `integration_connections`): finding it, requiring it active, logging an admin action, and
 * the disable. Each marketplace keeps its own settings, status shape and provider calls.
 */
export function marketplaceConnections(provider: 'delivery-a' | 'delivery-b', label: string) {
  const connectionOf = (db: CentralDb, scope: LocationScope): Promise<LocationConnectionRow | null> => locationConnection(db, scope.merchant.id, provider, scope.locationId);

  /** The active connection of the location; none or a disabled one is the model 404. */
  async function activeConnection(db: CentralDb, scope: LocationScope): Promise<LocationConnectionRow> {
    const c = await connectionOf(db, scope);
    if (!c || c.status !== 'active') throw errors.notFound(`${provider} integration`);
    return c;
  }

  /** One line of the connection's log (`integration_events`, kind `admin`). */
  async function logAction(db: CentralDb, scope: LocationScope, connectionId: string, eventType: string, detail: string | null, now: Date): Promise<void> {
    await db
      .insertInto('integration_events')
      .values({ id: Bun.randomUUIDv7(), connection_id: connectionId, merchant_id: scope.merchant.id, location_id: scope.locationId, provider, kind: 'admin', event_type: eventType, event_id: Bun.randomUUIDv7(), external_id: detail?.slice(0, EXTERNAL_ID_MAX) ?? null, status: 'done', created_at: now })
      .execute();
  }

  /**
   * Disables, under the location's connect claim: the marketplace is told first (`tellProvider` with
   * the store id; a store it no longer knows, 404, is fine; other failures go to `failure`), then the
   * connection is marked disabled and the action logged. Answers `statusOf` the connection after.
   */
  async function disable<S>(
    db: CentralDb,
    scope: LocationScope,
    now: Date,
    io: { tellProvider: (storeId: string) => Promise<unknown>; failure: (e: unknown) => never; statusOf: (c: LocationConnectionRow | null) => S },
  ): Promise<S> {
    return disconnectUnderClaim(db, { provider, merchantId: scope.merchant.id, locationId: scope.locationId }, label, now, async () => {
      const c = await activeConnection(db, scope);
      try {
        await io.tellProvider(c.external_ref);
      } catch (e) {
        if (!(e instanceof ProviderError && e.kind === 'http' && e.status === 404)) io.failure(e);
      }
      await db.updateTable('integration_connections').set({ status: 'disabled', updated_at: now }).where('id', '=', c.id).execute();
      await logAction(db, scope, c.id, 'disabled', null, now);
      return io.statusOf(await connectionOf(db, scope));
    });
  }

  return { connectionOf, activeConnection, logAction, disable };
}
