import { catalogText } from '@pos/domain';
import { EXTERNAL_ID_MAX, bindTenant, defaultSyncZone, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { RegisterDClient, RegisterDMenuResult, RegisterDSite } from '@pos/providers/register-d/register-d-client';
import { autoSyncStatus, validateAutoSyncPayload, writeAutoSync, type AutoSyncPayload, type AutoSyncStatus, type AutoSyncTarget } from './auto-sync.ts';
import type { LocationScope } from './delivery-a.ts';
import { deliveryMenuItems } from './delivery-menu.ts';
import type { SyncContext, SyncOutcome } from './sync-runners.ts';
import { locationConnection, type LocationConnectionRow } from './connections.ts';
import { claimConnection, disconnectUnderClaim, finishClaimWith, releaseConnectClaim, type ConnectClaim } from './connect-claims.ts';

/**
 * register-d administration per location (spec 1 "register-d"): a third-party register reached
 * through a transport; the `{provider}` path segment names the register vendor. The connection is a
 * central `integration_connections` row with provider `register-d:<vendor>`, the location, and
 * `external_ref` the vendor's site id at the transport (one site per vendor belongs to one location).
 * `runnerFor` (sync-runners.ts), the auto-sync zone default and `pos-coverage` all read these rows by
 * that provider word. Actions are logged in `integration_events` (kind `admin`).
 */
export const REGISTER_D = 'register-d';
const LABEL = 'register-d site';
export const DEFAULT_REGISTER_D_VENDORS = ['vendor-a', 'vendor-b'] as const;

export const registerDProvider = (vendor: string) => `${REGISTER_D}:${vendor}`;

/** The configured vendor words (`REGISTER_D_VENDORS`, comma-separated). */
export function registerDVendors(raw: string | undefined): readonly string[] {
  const list = (raw ?? '').split(',').map((v) => v.trim()).filter(Boolean);
  return list.length > 0 ? list : DEFAULT_REGISTER_D_VENDORS;
}

/** An unknown vendor word is a 404, like an unknown record. */
export function requireRegisterDVendor(vendors: readonly string[], vendor: string): string {
  if (!vendors.includes(vendor)) throw errors.notFound('register-d provider');
  return vendor;
}

export type RegisterDScope = LocationScope & { readonly vendor: string };

export interface RegisterDStatus extends AutoSyncStatus {
  readonly provider: string;
  readonly connected: boolean;
  readonly status: string;
  readonly site_id: string | null;
  readonly site_name: string | null;
  readonly connected_at: string | null;
  readonly menu_synced_at: string | null;
}

type ConnectionRow = LocationConnectionRow;

const connectionOf = (db: CentralDb, scope: RegisterDScope): Promise<ConnectionRow | null> => locationConnection(db, scope.merchant.id, registerDProvider(scope.vendor), scope.locationId);

async function activeConnection(db: CentralDb, scope: RegisterDScope): Promise<ConnectionRow> {
  const c = await connectionOf(db, scope);
  if (!c || c.status !== 'active') throw errors.notFound('register-d integration');
  return c;
}

const targetOf = (scope: RegisterDScope, connectionId: string): AutoSyncTarget => ({
  connectionId,
  merchantId: scope.merchant.id,
  tenantDatabase: scope.merchant.tenant_database,
  provider: registerDProvider(scope.vendor),
  locationId: scope.locationId,
});

/**
 * A refusal of the transport as our error: an unknown site is the caller's input (422 on `field`), a
 * refusal (409, 404 of a linked site) is 409, the rest (unreachable, 401 of our token, 5xx) is 503.
 */
function providerFailure(e: unknown, field?: string): never {
  if (e instanceof ProviderError) {
    if (e.kind === 'http' && e.status === 404 && field) throw errors.field(field, 'The site could not be found at register-d.');
    if (e.kind === 'http' && (e.status === 409 || e.status === 404 || e.status === 422)) throw errors.conflict(`register-d refused the request: ${e.message.replace(/^register-d: /, '')}`);
    throw errors.unavailable('register-d could not be reached.');
  }
  throw e;
}

async function logAction(db: CentralDb, scope: RegisterDScope, connectionId: string, eventType: string, detail: string | null, now: Date): Promise<void> {
  await db
    .insertInto('integration_events')
    .values({
      id: Bun.randomUUIDv7(),
      connection_id: connectionId,
      merchant_id: scope.merchant.id,
      location_id: scope.locationId,
      provider: registerDProvider(scope.vendor),
      kind: 'admin',
      event_type: eventType,
      event_id: Bun.randomUUIDv7(),
      external_id: detail?.slice(0, EXTERNAL_ID_MAX) ?? null,
      status: 'done',
      created_at: now,
    })
    .execute();
}

/** Status of the vendor at the location; the schedule's zone is never null (rule 6: the location's own zone by default). */
export async function registerDStatus(db: CentralDb, scope: RegisterDScope): Promise<RegisterDStatus> {
  const c = await connectionOf(db, scope);
  const schedule: AutoSyncStatus = c
    ? await autoSyncStatus(db, targetOf(scope, c.id))
    : { sync_time: null, sync_timezone: await defaultSyncZone(db, targetOf(scope, '')), enable_auto_sync: false, next_sync_at: null, last_sync: null };
  const name = c?.settings?.site_name;
  return {
    provider: scope.vendor,
    connected: c?.status === 'active',
    status: c?.status ?? 'disconnected',
    site_id: c?.external_ref ?? null,
    site_name: typeof name === 'string' ? name : null,
    connected_at: c?.connected_at ? new Date(c.connected_at).toISOString() : null,
    menu_synced_at: c?.menu_synced_at ? new Date(c.menu_synced_at).toISOString() : null,
    ...schedule,
  };
}

export const LINK_CODE_REQUIRED = 'The link code field is required.';
export const LINK_CODE_INVALID = 'The link code is not valid for this register-d site.';

/**
 * `POST /register-d/{provider}/{locationId}`: initiate (with `site_id` and the site's `link_code`, checked at
 * the transport: missing or wrong is a 422 on `link_code`) or save the settings and the
 * auto-sync schedule. Without an active connection `site_id` is required. The site is checked at the
 * transport (unknown: 422 on `site_id`) and linked to our location id there; a site connected to another
 * merchant or location here, or another register-d vendor active at this location, is a 409. Everything
 * is validated before anything is written; a refused request writes nothing. Answers the new status.
 */
export async function saveRegisterD(db: CentralDb, client: () => RegisterDClient, scope: RegisterDScope, body: AutoSyncPayload & { site_id?: string; link_code?: string }, now: Date): Promise<RegisterDStatus> {
  const { site_id: siteId, link_code: linkCode, ...schedule } = body;
  validateAutoSyncPayload(schedule, { platformA: false });
  const existing = await connectionOf(db, scope);
  const active = existing?.status === 'active' ? existing : null;
  if (!active && siteId === undefined) throw errors.field('site_id', 'The site id field is required.');
  let connectionId = active?.id ?? null;

  if (siteId !== undefined && !(active && active.external_ref === siteId)) {
    // One transport token reaches every site: linking one (first, another, or again) takes its owner's code.
    if (linkCode === undefined) throw errors.field('link_code', LINK_CODE_REQUIRED);
    connectionId = await connectSite(db, client, scope, siteId, linkCode, now);
  }

  if (schedule.sync_time !== undefined || schedule.sync_timezone !== undefined) {
    await writeAutoSync(db, targetOf(scope, connectionId!), schedule, now);
    await logAction(db, scope, connectionId!, 'schedule_saved', schedule.sync_time ?? null, now);
  }
  return registerDStatus(db, scope);
}

/**
 * Connects `siteId` to the location under a claim (connect-claims.ts, group `register-d`): the site, and
 * the location for every vendor, are held while the transport is called, so two merchants taking one site
 * or two connects of one location at once end with one winner; the other is 409 `integration_taken` or
 * `integration_busy`. Answers the connection id.
 */
async function connectSite(db: CentralDb, client: () => RegisterDClient, scope: RegisterDScope, siteId: string, linkCode: string, now: Date): Promise<string> {
  const provider = registerDProvider(scope.vendor);
  const claim: ConnectClaim = { provider, externalRef: siteId, merchantId: scope.merchant.id, locationId: scope.locationId, group: REGISTER_D };
  await claimConnection(db, claim, LABEL, now);
  let existing: ConnectionRow | null;
  let site: RegisterDSite;
  try {
    // Read under the claim: no other connect of this location or site runs now.
    existing = await connectionOf(db, scope);
    const otherVendor = await db
      .selectFrom('integration_connections')
      .select('provider')
      .where('merchant_id', '=', scope.merchant.id)
      .where('location_id', '=', scope.locationId)
      .where('provider', 'like', `${REGISTER_D}:%`)
      .where('provider', '<>', provider)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (otherVendor) throw errors.conflict(`This location is already connected to register-d through ${otherVendor.provider.slice(REGISTER_D.length + 1)}.`, { reason: 'integration_taken' });
    try {
      await client().getSite(scope.vendor, siteId);
      site = await client().linkSite(scope.vendor, siteId, scope.locationId, linkCode);
    } catch (e) {
      if (e instanceof ProviderError && e.kind === 'http' && e.status === 403 && e.code === 'invalid_link_code') throw errors.field('link_code', LINK_CODE_INVALID);
      providerFailure(e, 'site_id');
    }
  } catch (e) {
    await releaseConnectClaim(db, claim);
    throw e;
  }
  const active = existing?.status === 'active' ? existing : null;
  // The previous site of this location is let go at the transport (best effort: it may be gone there).
  if (active && active.external_ref !== siteId) await client().unlinkSite(scope.vendor, active.external_ref).catch(() => undefined);
  // The transport's name as we can store it (a NUL cannot be in a jsonb document: the connect was a 500 after the link).
  const settings = JSON.stringify({ site_name: catalogText(site.name, 200) });
  const connectionId = await finishClaimWith(db, claim, async (trx) => {
    // Our own disabled row of this site at another location gives way (the unique key is provider + site;
    // the claim refused another merchant's row and an active one).
    await trx
      .deleteFrom('integration_connections')
      .where('provider', '=', provider)
      .where('external_ref', '=', siteId)
      .where('merchant_id', '=', scope.merchant.id)
      .$if(existing !== null, (q) => q.where('id', '<>', existing!.id))
      .execute();
    if (existing) {
      // Keep the row (and its schedule) when the location changes site or reconnects.
      await trx.updateTable('integration_connections').set({ external_ref: siteId, status: 'active', settings, connected_at: now, updated_at: now }).where('id', '=', existing.id).execute();
      return existing.id;
    }
    const row = await trx
      .insertInto('integration_connections')
      .values({ id: Bun.randomUUIDv7(), provider, external_ref: siteId, merchant_id: scope.merchant.id, location_id: scope.locationId, status: 'active', settings, connected_at: now, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  });
  await logAction(db, scope, connectionId, active ? 'site_changed' : 'connected', siteId, now);
  return connectionId;
}

/**
 * `DELETE /register-d/{provider}/{locationId}`: the site is unlinked at the transport (an unknown site
 * there is fine), the connection disabled; its schedule is kept for a reconnect but not run.
 */
export async function disconnectRegisterD(db: CentralDb, client: () => RegisterDClient, scope: RegisterDScope, now: Date): Promise<RegisterDStatus> {
  const location = { provider: registerDProvider(scope.vendor), merchantId: scope.merchant.id, locationId: scope.locationId, group: REGISTER_D };
  return disconnectUnderClaim(db, location, LABEL, now, async () => {
    const c = await activeConnection(db, scope);
    try {
      await client().unlinkSite(scope.vendor, c.external_ref);
    } catch (e) {
      if (!(e instanceof ProviderError && e.kind === 'http' && e.status === 404)) providerFailure(e);
    }
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('integration_connections').set({ status: 'disabled', updated_at: now }).where('id', '=', c.id).execute();
      await trx.updateTable('integration_auto_syncs').set({ next_run_at: null, updated_at: now }).where('connection_id', '=', c.id).execute();
    });
    await logAction(db, scope, c.id, 'disconnected', c.external_ref, now);
    return registerDStatus(db, scope);
  });
}

/** `POST .../sync-menu`: pushes the location's menu (the delivery catalog reader, availability included) to the site. */
export async function syncRegisterDMenu(db: CentralDb, tdb: TenantDb, client: RegisterDClient, scope: RegisterDScope, now: Date): Promise<RegisterDMenuResult> {
  const c = await activeConnection(db, scope);
  const items = await deliveryMenuItems(tdb, scope.locationId);
  let result: RegisterDMenuResult;
  try {
    result = await client.pushMenu(scope.vendor, c.external_ref, items);
  } catch (e) {
    providerFailure(e);
  }
  await db.updateTable('integration_connections').set({ menu_synced_at: now, updated_at: now }).where('id', '=', c.id).execute();
  await logAction(db, scope, c.id, 'menu_synced', `items=${result.items} created=${result.created} updated=${result.updated} removed=${result.removed}`, now);
  return result;
}

export interface RegisterDTestResult {
  readonly ok: boolean;
  readonly site_id: string;
  readonly message: string;
}

/**
 * `GET .../test`: a round trip through the transport to the connected site. The answer says whether it
 * worked (a test that reaches a broken vendor succeeded at telling so); no connection is a 404.
 */
export async function testRegisterD(db: CentralDb, client: RegisterDClient, scope: RegisterDScope): Promise<RegisterDTestResult> {
  const c = await activeConnection(db, scope);
  try {
    await client.ping(scope.vendor, c.external_ref);
    return { ok: true, site_id: c.external_ref, message: 'The site answered through register-d.' };
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    const message =
      e.kind === 'http' && e.status === 404
        ? 'The site is no longer known at register-d.'
        : e.kind === 'http' && e.status === 401
          ? 'register-d refused our credentials.'
          : 'register-d could not be reached.';
    return { ok: false, site_id: c.external_ref, message };
  }
}

/**
 * The scheduled sync of a `register-d:<vendor>` connection (the worker's runner): the location's menu
 * pushed through the transport, counts reported. No client configured: `not_configured`.
 */
export async function runRegisterDSync(ctx: SyncContext, registerD: { client: RegisterDClient; vendors: readonly string[] } | null): Promise<SyncOutcome> {
  const c = ctx.connection;
  if (!registerD) return { status: 'not_configured', detail: 'register-d is not configured (REGISTER_D_API_URL, REGISTER_D_API_TOKEN).' };
  const vendor = c.provider.startsWith(`${REGISTER_D}:`) ? c.provider.slice(REGISTER_D.length + 1) : '';
  if (!registerD.vendors.includes(vendor)) return { status: 'error', detail: `The register-d vendor "${vendor}" is not configured (REGISTER_D_VENDORS).`, retry: false };
  if (!c.locationId) return { status: 'error', detail: 'The register-d connection has no location.', retry: false };
  const scope: RegisterDScope = { merchant: { id: c.merchantId, tenant_database: c.tenantDatabase }, locationId: c.locationId, vendor };
  const r = await syncRegisterDMenu(ctx.central, bindTenant(ctx.central, c.tenantDatabase), registerD.client, scope, ctx.now());
  return { status: 'ok', counts: { items: r.items, created: r.created, updated: r.updated, removed: r.removed } };
}
