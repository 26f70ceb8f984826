import { syncedDetail } from './dispatch-register.ts';
import { sql } from 'kysely';
import { isUniqueViolation, type CentralDb, type TenantDb } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { RegisterAClient, RegisterAError, RegisterATokenError, type RegisterAItem } from '@pos/providers/register-a/register-a-client';
import { encryptSecret, type TokenKey } from './token-crypto.ts';
import { pendingRef, recordToken, REGISTER_A, registerARecord, registerARecords, type RegisterARecord } from './register-a-records.ts';

/**
 * `/back-office/register-a` (spec 1 "Integration administration", register-a): a location's token,
 * store selection, tests, catalog sync, order verification; merchant-level refresh, test and sync.
 */
export interface RegisterAAdminDeps {
  readonly central: CentralDb;
  readonly tdb: TenantDb;
  readonly merchantId: string;
  /** null: `REGISTER_A_BASE_URL` or `INTEGRATION_TOKEN_KEY` unset. */
  readonly config: { readonly baseUrl: string; readonly tokenKey: TokenKey } | null;
  readonly now: () => Date;
}

export interface RegisterALocationView {
  location_id: string;
  connected: boolean;
  status: string;
  store_id: string | null;
  store_name: string | null;
  company_id: string | null;
  namespace: string | null;
  connected_at: string | null;
  updated_at: string | null;
}

const notConnected = (locationId: string): RegisterALocationView => ({ location_id: locationId, connected: false, status: 'not_connected', store_id: null, store_name: null, company_id: null, namespace: null, connected_at: null, updated_at: null });

export function viewOf(r: RegisterARecord): RegisterALocationView {
  return {
    location_id: r.locationId,
    connected: r.status === 'active',
    status: r.status,
    store_id: r.storeId,
    store_name: r.storeName,
    company_id: r.companyId,
    namespace: r.namespace,
    connected_at: r.connectedAt ? r.connectedAt.toISOString() : null,
    updated_at: r.updatedAt.toISOString(),
  };
}

function configured(deps: RegisterAAdminDeps) {
  if (!deps.config) throw errors.conflict('register-a is not configured on this platform.', { reason: 'register_a_not_configured' });
  return deps.config;
}

/** A provider or token failure as a clear client error (the provider's own message, never a stack). */
export function providerFailure(e: unknown): never {
  if (e instanceof RegisterATokenError) throw errors.businessRule(e.message, { reason: e.reason });
  if (e instanceof RegisterAError && e.status !== null && e.status >= 400 && e.status < 500) throw errors.businessRule(`register-a refused the call: ${e.providerMessage}`, { reason: 'register_a_refused', extra: { provider_status: e.status } });
  if (e instanceof ProviderError) throw errors.unavailable('register-a could not be reached.', { reason: 'register_a_unavailable' });
  throw e;
}

async function location(deps: RegisterAAdminDeps, locationId: string): Promise<void> {
  const l = await deps.tdb.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst();
  if (!l) throw errors.notFound('location');
}

async function recordOr404(deps: RegisterAAdminDeps, locationId: string): Promise<RegisterARecord> {
  await location(deps, locationId);
  const r = await registerARecord(deps.central, deps.merchantId, locationId);
  if (!r) throw errors.notFound('register-a connection');
  return r;
}

function clientOf(deps: RegisterAAdminDeps, token: string): RegisterAClient {
  const cfg = configured(deps);
  try {
    return new RegisterAClient({ baseUrl: cfg.baseUrl, token });
  } catch (e) {
    return providerFailure(e);
  }
}

function recordClient(deps: RegisterAAdminDeps, rec: RegisterARecord): RegisterAClient {
  const cfg = configured(deps);
  const token = recordToken(cfg.tokenKey, rec);
  if (!token) throw errors.conflict('The stored register-a token cannot be read; paste it again.', { reason: 'token_unreadable' });
  return clientOf(deps, token);
}

/** `GET /register-a/status`: whether the service is configured and every location's record. */
export async function registerAStatus(deps: RegisterAAdminDeps): Promise<{ configured: boolean; locations: RegisterALocationView[] }> {
  const recs = await registerARecords(deps.central, deps.merchantId);
  return { configured: deps.config !== null, locations: recs.map(viewOf) };
}

/** `GET /register-a/{locationId}`. */
export async function registerALocation(deps: RegisterAAdminDeps, locationId: string): Promise<RegisterALocationView> {
  await location(deps, locationId);
  const r = await registerARecord(deps.central, deps.merchantId, locationId);
  return r ? viewOf(r) : notConnected(locationId);
}

/** Validates a pasted token against register-a (`/v1/authentication`); its claims and applicationId. */
async function checkToken(deps: RegisterAAdminDeps, token: string) {
  const client = clientOf(deps, token);
  try {
    const a = await client.authenticate();
    return { client, applicationId: a.applicationId || client.claims.applicationId };
  } catch (e) {
    return providerFailure(e);
  }
}

/**
 * `POST /register-a/{locationId}/enable` (and `PUT .../token`, `rotate`): saves the token encrypted.
 * A first enable leaves the record `pending_store`; a rotation keeps the selected store, which the new
 * token must still cover (422 otherwise, nothing written).
 */
export async function saveRegisterAToken(deps: RegisterAAdminDeps, locationId: string, token: string, mode: 'enable' | 'rotate'): Promise<RegisterALocationView> {
  await location(deps, locationId);
  const cfg = configured(deps);
  const existing = await registerARecord(deps.central, deps.merchantId, locationId);
  if (mode === 'rotate' && !existing) throw errors.notFound('register-a connection');
  const { client, applicationId } = await checkToken(deps, token);
  if (existing?.storeId) {
    try {
      await client.store(existing.storeId);
    } catch (e) {
      providerFailure(e);
    }
  }
  const now = deps.now();
  const values = {
    access_token_encrypted: encryptSecret(cfg.tokenKey, token),
    webhook_key_encrypted: encryptSecret(cfg.tokenKey, applicationId),
    connected_at: now,
    updated_at: now,
  };
  if (existing) {
    await deps.central
      .updateTable('integration_connections')
      .set({ ...values, status: existing.storeId ? 'active' : 'pending_store', settings: JSON.stringify({ ...existing.settings, namespace: client.claims.namespace }) })
      .where('id', '=', existing.id)
      .execute();
  } else {
    await deps.central
      .insertInto('integration_connections')
      .values({
        id: Bun.randomUUIDv7(),
        provider: REGISTER_A,
        external_ref: pendingRef(locationId),
        merchant_id: deps.merchantId,
        location_id: locationId,
        status: 'pending_store',
        settings: JSON.stringify({ namespace: client.claims.namespace }),
        created_at: now,
        ...values,
      })
      .execute();
  }
  return registerALocation(deps, locationId);
}

/** `GET /register-a/{locationId}/stores`: every store the token sees (pages of 25). */
export async function registerAStores(deps: RegisterAAdminDeps, locationId: string): Promise<{ id: string; name: string; company_id: string }[]> {
  const rec = await recordOr404(deps, locationId);
  try {
    const stores = await recordClient(deps, rec).stores();
    return stores.map((s) => ({ id: s.id, name: s.name, company_id: s.company }));
  } catch (e) {
    return providerFailure(e);
  }
}

/** `POST /register-a/{locationId}/stores/select`: binds the location to one store (one merchant per store: 409 otherwise). */
export async function selectRegisterAStore(deps: RegisterAAdminDeps, locationId: string, storeId: string): Promise<RegisterALocationView> {
  const rec = await recordOr404(deps, locationId);
  let store;
  try {
    store = await recordClient(deps, rec).store(storeId);
  } catch (e) {
    return providerFailure(e);
  }
  const storeTaken = () => errors.conflict('This register-a store is already connected to another location.', { reason: 'integration_taken' });
  const taken = await deps.central.selectFrom('integration_connections').select(['id', 'merchant_id']).where('provider', '=', REGISTER_A).where('external_ref', '=', store.id).executeTakeFirst();
  if (taken && taken.id !== rec.id) throw storeTaken();
  try {
    await deps.central
      .updateTable('integration_connections')
      .set({ external_ref: store.id, external_group_ref: store.company, status: 'active', settings: JSON.stringify({ ...rec.settings, store_id: store.id, store_name: store.name, company_id: store.company }), updated_at: deps.now() })
      .where('id', '=', rec.id)
      .execute();
  } catch (e) {
    // Another location selected the store between the check and this write (before: a 500).
    if (isUniqueViolation(e, 'integration_connections_provider_ref')) throw storeTaken();
    throw e;
  }
  return registerALocation(deps, locationId);
}

/** `POST /register-a/{locationId}/test`: the token authenticates and sees the selected store. */
export async function testRegisterA(deps: RegisterAAdminDeps, locationId: string): Promise<{ ok: boolean; namespace: string; store: { id: string; name: string } | null; message: string | null }> {
  const rec = await recordOr404(deps, locationId);
  const client = recordClient(deps, rec);
  try {
    await client.authenticate();
    const store = rec.storeId ? await client.store(rec.storeId) : null;
    return { ok: true, namespace: client.claims.namespace, store: store ? { id: store.id, name: store.name } : null, message: null };
  } catch (e) {
    if (e instanceof RegisterAError || e instanceof RegisterATokenError) return { ok: false, namespace: client.claims.namespace, store: null, message: e instanceof RegisterAError ? e.providerMessage : e.message };
    return providerFailure(e);
  }
}

/** `DELETE /register-a/{locationId}`: the record and its token go. */
export async function disableRegisterA(deps: RegisterAAdminDeps, locationId: string): Promise<void> {
  const rec = await recordOr404(deps, locationId);
  await deps.central.deleteFrom('integration_connections').where('id', '=', rec.id).execute();
}

/**
 * `POST /register-a/{locationId}/orders/verify`: the location's orders the dispatch reported sent
 * (latest 50) are looked up in register-a's store (every kitchen status, `done` asked explicitly);
 * answers which were found and which are missing there. Only the orders sent to register-a: those
 * another register took (the location used one before) were never meant to be there.
 */
export async function verifyRegisterAOrders(deps: RegisterAAdminDeps, locationId: string): Promise<{ checked: number; found: string[]; missing: string[] }> {
  const rec = await recordOr404(deps, locationId);
  if (!rec.storeId) throw errors.conflict('Select a register-a store first.', { reason: 'no_store' });
  const sent = await deps.tdb
    .selectFrom('transactions')
    .innerJoin('transaction_register_sync as s', 's.transaction_id', 'transactions.id')
    .select('transactions.id')
    .where('transactions.location_id', '=', locationId)
    .where('s.status', '=', 'synced')
    .where('s.detail', 'like', `${syncedDetail('register-a', '')}%`)
    .orderBy('transactions.created_at', 'desc')
    .limit(50)
    .execute();
  const client = recordClient(deps, rec);
  let there: Set<string>;
  try {
    const [open, done] = await Promise.all([client.orders(rec.storeId), client.orders(rec.storeId, 'done')]);
    there = new Set([...open, ...done].map((o) => o.orderId));
  } catch (e) {
    return providerFailure(e);
  }
  const ids = sent.map((s) => s.id);
  return { checked: ids.length, found: ids.filter((i) => there.has(i)), missing: ids.filter((i) => !there.has(i)) };
}

export interface CatalogSyncReport {
  location_id: string;
  created: number;
  updated: number;
  priced: number;
  deleted: number;
  /** Structural differences register-a's API cannot write (modifier groups, families, images); set up on the device. */
  unsupported: { item_id: string; name: string; difference: string }[];
}

/** The reference register-a rows carry for our items: `pos:<item id>`. */
const refOf = (itemId: string) => `pos:${itemId}`;

/** The most of the location's items one catalog sync maintains (each is a call or two to register-a). */
export const MAX_REGISTER_A_SYNC_ITEMS = 2000;
export const CATALOG_TOO_LARGE = `The location sells more than ${MAX_REGISTER_A_SYNC_ITEMS} items; a register-a sync maintains at most ${MAX_REGISTER_A_SYNC_ITEMS}.`;

/**
 * `POST /register-a/{locationId}/sync`: maintains register-a's rows from the location's catalog (name,
 * description, reference, price; create and delete), matched by reference `pos:<item id>`. Rows
 * without our reference are left alone, and so are rows of items another of our locations on a store
 * of the same company sells (items are the company's). What the API cannot write is reported, not attempted.
 */
export async function syncRegisterACatalog(deps: RegisterAAdminDeps, locationId: string): Promise<CatalogSyncReport> {
  const rec = await recordOr404(deps, locationId);
  if (!rec.storeId || !rec.companyId) throw errors.conflict('Select a register-a store first.', { reason: 'no_store' });
  const ours = await deps.tdb
    .selectFrom('items')
    .select(['id', 'name', 'description', 'unit_price', 'category', 'image_content_id'])
    .where((eb) => eb.or([eb('location_ids', 'is', null), eb(sql<boolean>`${locationId}::uuid = any(location_ids)`, '=', true)]))
    .orderBy('name')
    .limit(MAX_REGISTER_A_SYNC_ITEMS + 1)
    .execute();
  // Cut short, the sync would answer done while the items past the cut are never created or priced.
  if (ours.length > MAX_REGISTER_A_SYNC_ITEMS) throw errors.field('catalog', CATALOG_TOO_LARGE);
  const withGroups = new Set((await deps.tdb.selectFrom('item_modifier_groups').select('item_id').distinct().execute()).map((r) => r.item_id));
  const client = recordClient(deps, rec);
  const companyId = rec.companyId;
  // register-a items belong to the company, which every store of it shares: a row is stale only when no
  // location of ours on a store of this company sells its item (not merely when this location does not).
  const sharing = [...new Set([locationId, ...(await registerARecords(deps.central, deps.merchantId)).filter((r) => r.companyId === companyId).map((r) => r.locationId)])];
  const soldInCompany = new Set(
    (
      await deps.tdb
        .selectFrom('items')
        .select('id')
        .where((eb) => eb.or([eb('location_ids', 'is', null), eb(sql<boolean>`location_ids && ${sharing}::uuid[]`, '=', true)]))
        .execute()
    ).map((r) => r.id),
  );
  const report: CatalogSyncReport = { location_id: locationId, created: 0, updated: 0, priced: 0, deleted: 0, unsupported: [] };
  try {
    const theirs = await client.items(companyId);
    const byRef = new Map<string, RegisterAItem>(theirs.filter((i) => i.reference.startsWith('pos:')).map((i) => [i.reference, i]));
    let priceListId = typeof rec.settings.price_list_id === 'string' ? rec.settings.price_list_id : null;
    if (!priceListId) {
      priceListId = (await client.createPriceList(companyId, rec.storeId)).id;
      await deps.central.updateTable('integration_connections').set({ settings: JSON.stringify({ ...rec.settings, price_list_id: priceListId }) }).where('id', '=', rec.id).execute();
    }
    for (const it of ours) {
      const ref = refOf(it.id);
      const found = byRef.get(ref);
      byRef.delete(ref);
      const description = it.description ?? '';
      if (!found) {
        const created = await client.createItem(companyId, { name: it.name, price: it.unit_price, description, reference: ref });
        await client.setItemPrice(companyId, priceListId, created.id, it.unit_price);
        report.created += 1;
      } else {
        if (found.name !== it.name || found.description !== description) {
          await client.updateItem(companyId, found.id, { name: it.name, description, reference: ref });
          report.updated += 1;
        }
        if (Math.round(found.price * 100) !== it.unit_price) {
          await client.setItemPrice(companyId, priceListId, found.id, it.unit_price);
          report.priced += 1;
        }
      }
      if (withGroups.has(it.id)) report.unsupported.push({ item_id: it.id, name: it.name, difference: 'modifier groups: set them up on the register device' });
      if (it.category) report.unsupported.push({ item_id: it.id, name: it.name, difference: 'family: set it on the register device' });
      if (it.image_content_id) report.unsupported.push({ item_id: it.id, name: it.name, difference: 'image: add it on the register device' });
    }
    for (const stale of byRef.values()) {
      if (soldInCompany.has(stale.reference.slice('pos:'.length))) continue;
      await client.deleteItem(companyId, stale.id);
      report.deleted += 1;
    }
    report.deleted += await dropDuplicateRows(client, companyId);
  } catch (e) {
    return providerFailure(e);
  }
  report.unsupported = report.unsupported.slice(0, 500);
  return report;
}

/** register-a refused the request itself (a 4xx other than a timeout or a rate limit), or refused the token. */
function isRefusal(e: ProviderError | RegisterATokenError): boolean {
  if (e instanceof RegisterATokenError) return true;
  return e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429;
}

/**
 * Two syncs of one company at once (a manual one over the scheduled one, two locations of the company at
 * one sync time) both create the rows they miss: a reference then has two rows, and only one of them was
 * ever updated or deleted again. Every sync ends by keeping one row per reference of ours (the smallest
 * id, so syncs running at once keep the same one) and deleting the others; one already gone is fine. The
 * sync that finishes last sees every row the others created. Without a lock: a sync calls the register
 * between its statements and may run for minutes, which no transaction or pooled connection should span.
 */
async function dropDuplicateRows(client: RegisterAClient, companyId: string): Promise<number> {
  const byRef = new Map<string, RegisterAItem[]>();
  for (const it of await client.items(companyId)) if (it.reference.startsWith('pos:')) byRef.set(it.reference, [...(byRef.get(it.reference) ?? []), it]);
  let dropped = 0;
  for (const rows of byRef.values()) {
    for (const extra of rows.sort((a, b) => (a.id < b.id ? -1 : 1)).slice(1)) {
      try {
        await client.deleteItem(companyId, extra.id);
        dropped += 1;
      } catch (e) {
        if (!(e instanceof ProviderError && e.kind === 'http' && e.status === 404)) throw e;
      }
    }
  }
  return dropped;
}

/** `POST /register-a/locations/sync`: refreshes each record's store name from register-a. */
export async function refreshRegisterALocations(deps: RegisterAAdminDeps): Promise<{ locations: RegisterALocationView[] }> {
  const recs = await registerARecords(deps.central, deps.merchantId);
  for (const rec of recs) {
    if (!rec.storeId) continue;
    try {
      const s = await recordClient(deps, rec).store(rec.storeId);
      await deps.central.updateTable('integration_connections').set({ status: 'active', settings: JSON.stringify({ ...rec.settings, store_name: s.name, company_id: s.company }), updated_at: deps.now() }).where('id', '=', rec.id).execute();
    } catch (e) {
      if (!(e instanceof ProviderError || e instanceof RegisterATokenError)) throw e;
      // Only a refusal (the token or the store refused) makes the record `error`: a record not `active`
      // receives no orders (`dispatch-register`), so register-a away, slow or rate-limiting for one
      // refresh must not stop every location's dispatch after it is back. The status stays as it was.
      if (!isRefusal(e)) continue;
      await deps.central.updateTable('integration_connections').set({ status: 'error', updated_at: deps.now() }).where('id', '=', rec.id).execute();
    }
  }
  return { locations: (await registerARecords(deps.central, deps.merchantId)).map(viewOf) };
}

/** `POST /register-a/test` (merchant level): the test of every location's record. */
export async function testRegisterAAll(deps: RegisterAAdminDeps): Promise<{ results: { location_id: string; ok: boolean; message: string | null }[] }> {
  const recs = await registerARecords(deps.central, deps.merchantId);
  const results = [];
  for (const r of recs) {
    try {
      const t = await testRegisterA(deps, r.locationId);
      results.push({ location_id: r.locationId, ok: t.ok, message: t.message });
    } catch (e) {
      results.push({ location_id: r.locationId, ok: false, message: e instanceof AppError ? e.message : 'register-a could not be reached.' });
    }
  }
  return { results };
}

/** `POST /register-a/sync` (merchant level): the catalog sync of every active location. */
export async function syncRegisterAAll(deps: RegisterAAdminDeps, grant: { readonly allLocations: boolean; readonly locationIds: ReadonlySet<string> }): Promise<{ results: CatalogSyncReport[]; failed: { location_id: string; message: string }[] }> {
  // Only the caller's locations: a location's sync deletes items at its register, which `/{locationId}/sync` already limits to the grant.
  const recs = (await registerARecords(deps.central, deps.merchantId)).filter((r) => r.status === 'active' && (grant.allLocations || grant.locationIds.has(r.locationId)));
  const results: CatalogSyncReport[] = [];
  const failed: { location_id: string; message: string }[] = [];
  for (const r of recs) {
    try {
      results.push(await syncRegisterACatalog(deps, r.locationId));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      failed.push({ location_id: r.locationId, message: e.message });
    }
  }
  return { results, failed };
}
