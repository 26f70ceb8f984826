import { centralIn, type TenantTx } from '@pos/db';
import { readSettings } from '../online-ordering/channel-settings.ts';

/**
 * What refers to a location beyond the tenant schema's foreign keys (decisions.md, "Back-office
 * settings"): records that outlive a delete unnoticed (a cascade, or central rows without a key) while
 * something outside keeps acting on them. Read and written in the location delete's own transaction,
 * with the location's row locked.
 */

/** card-a subscription statuses after which nothing is billed any more; any other still bills. */
export const ENDED_SUBSCRIPTION_STATUSES = ['canceled', 'incomplete_expired'] as const;

/** The central tables, reached from inside a tenant transaction (its builder would add the tenant schema). */
const central = (tx: TenantTx) => centralIn(tx);

/**
 * True while the location is still billed, connected or printed to: a printer in service (its token
 * would outlive the cascade), a card-a subscription that has not ended (its record would cascade away
 * while card-a keeps billing), an integration connection that is not disabled, or a register-b /
 * register-c mapping of such a connection (none of which the merchant could disable or unmap once the
 * location is gone).
 */
export async function locationHeldOutside(tx: TenantTx, merchantId: string, locationId: string): Promise<boolean> {
  // A printer in service (configured or paired) polls from outside with a central token that the
  // cascade would leave live. Its rows are locked, every printer of the location: a configure or a
  // pairing (which lock the printer first) waiting on them then finds the printer gone, a 404.
  const printers = await tx.selectFrom('printers').select('state').where('location_id', '=', locationId).forUpdate().execute();
  if (printers.some((p) => p.state === 'configured' || p.state === 'paired')) return true;
  const billed = await tx
    .selectFrom('billing_subscriptions')
    .select('id')
    .where('location_id', '=', locationId)
    .where('status', 'not in', [...ENDED_SUBSCRIPTION_STATUSES])
    .limit(1)
    .executeTakeFirst();
  if (billed) return true;
  const c = central(tx);
  const connected = await c
    .selectFrom('integration_connections')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('location_id', '=', locationId)
    .where('status', '!=', 'disabled')
    .unionAll(
      c
        .selectFrom('register_b_mappings as m')
        .innerJoin('integration_connections as ic', 'ic.id', 'm.connection_id')
        .select('ic.id')
        .where('m.merchant_id', '=', merchantId)
        .where('m.location_id', '=', locationId)
        .where('ic.status', '!=', 'disabled'),
    )
    .unionAll(
      c
        .selectFrom('register_c_mappings as m')
        .innerJoin('integration_connections as ic', 'ic.id', 'm.connection_id')
        .select('ic.id')
        .where('m.merchant_id', '=', merchantId)
        .where('m.location_id', '=', locationId)
        .where('ic.status', '!=', 'disabled'),
    )
    .limit(1)
    .executeTakeFirst();
  return connected !== undefined;
}

/**
 * Removes the central rows that only point at the location and mean nothing without it: its table-QR
 * directory entries (its table sections cascade away), its public restaurant listing and upvotes,
 * and mappings left by disabled connections.
 */
export async function releaseCentralRows(tx: TenantTx, merchantId: string, locationId: string): Promise<void> {
  const c = central(tx);
  await c.deleteFrom('table_qr_directory').where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
  const listing = await c.deleteFrom('restaurant_listings').where('merchant_id', '=', merchantId).where('location_id', '=', locationId).returning('location_id').executeTakeFirst();
  if (listing) await c.deleteFrom('restaurant_upvotes').where('location_id', '=', locationId).execute();
  await c.deleteFrom('register_b_mappings').where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
  await c.deleteFrom('register_c_mappings').where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
}

/**
 * The public restaurant listing follows the location's status: an inactive location is not suggested;
 * active again, it is listed while its online ordering is on.
 */
export async function listingFollowsStatus(tx: TenantTx, merchantId: string, locationId: string, status: string, now: Date): Promise<void> {
  const listed = status === 'active' && (await readSettings(tx, locationId, 'online_ordering')).settings.enabled;
  await central(tx).updateTable('restaurant_listings').set({ listed, updated_at: now }).where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
}

/** The public restaurant listing carries the location's name: a rename follows at once. */
export async function renameListing(tx: TenantTx, merchantId: string, locationId: string, name: string, now: Date): Promise<void> {
  await central(tx).updateTable('restaurant_listings').set({ name, updated_at: now }).where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
}
