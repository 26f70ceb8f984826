import { catalogText } from '@pos/domain';
import { errors, type FieldErrors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import type { RegisterBBranch, RegisterBClient } from '@pos/providers/register-b/register-b-client';
import { logActivity } from '../activity/log-activity.ts';
import { locationExists } from '../auth/auth-records.ts';
import { callRegisterB, logRegisterB, providerStatus, requireRegisterB, writeRegisterBSettings, type RegisterBScope, type RegisterBSettings } from './register-b-connection.ts';

/**
 * register-b administration at the account level (spec 1 "register-b", merchant level): the connection
 * test, the provider's health, its branches and our location <-> branch mappings (central
 * `register_b_mappings`), the diagnosis checklist, the probed capabilities and the live-inventory switch.
 * Every use case first requires the merchant's connection (404 `integration` without one), then the
 * client (`client` null: `REGISTER_B_API_URL`/`REGISTER_B_API_TOKEN` unset -> 503).
 */
export function needClient(client: RegisterBClient | null): RegisterBClient {
  if (!client) throw errors.unavailable('register-b is not configured.');
  return client;
}

export interface RegisterBTestResult {
  readonly ok: boolean;
  readonly account: { id: string; name: string; status: string } | null;
  /** register-b's refusal code (`account_not_found`, `account_suspended`, ...) or `unreachable`. */
  readonly reason: string | null;
  readonly message: string | null;
}

/** `GET /test`: asks register-b for the connected account; a refusal or an outage is reported, not thrown. */
export async function testRegisterB(scope: RegisterBScope, client: RegisterBClient | null): Promise<RegisterBTestResult> {
  const c = await requireRegisterB(scope);
  const api = needClient(client);
  try {
    const account = await api.account(c.accountId);
    return { ok: account.status === 'active', account, reason: account.status === 'active' ? null : `account_${account.status}`, message: null };
  } catch (e) {
    const status = providerStatus(e);
    if (status !== null && status >= 400 && status < 500 && status !== 401) return { ok: false, account: null, reason: (e as { code: string | null }).code ?? `http_${status}`, message: (e as Error).message.replace(/^register-b: /, '') };
    if (status === 401) return { ok: false, account: null, reason: 'credentials_refused', message: 'register-b refused the partner credentials.' };
    return { ok: false, account: null, reason: 'unreachable', message: 'register-b could not be reached.' };
  }
}

/** `GET /healthcheck`: register-b's own health (no account, no connection needed). */
export async function registerBHealth(client: RegisterBClient | null): Promise<{ reachable: boolean; status: string | null; version: string | null }> {
  const api = needClient(client);
  try {
    const h = await api.health();
    return { reachable: true, status: h.status, version: h.version };
  } catch {
    return { reachable: false, status: null, version: null };
  }
}

export interface RegisterBBranchView {
  readonly id: string;
  readonly name: string;
  /** Our location mapped to the branch, or null. */
  readonly location_id: string | null;
}

async function mappingRows(scope: Pick<RegisterBScope, 'db' | 'merchant'>) {
  return scope.db.selectFrom('register_b_mappings').selectAll().where('merchant_id', '=', scope.merchant.id).execute();
}

/** `GET /branches`: the account's branches at register-b, each with the location mapped to it. */
export async function registerBBranches(scope: RegisterBScope, client: RegisterBClient | null): Promise<RegisterBBranchView[]> {
  const c = await requireRegisterB(scope);
  const branches = await callRegisterB(() => needClient(client).branches(c.accountId));
  const byBranch = new Map((await mappingRows(scope)).map((m) => [m.branch_id, m.location_id]));
  return branches.map((b) => ({ id: b.id, name: b.name, location_id: byBranch.get(b.id) ?? null }));
}

export interface RegisterBMappingView {
  readonly location_id: string;
  readonly location_name: string;
  readonly branch_id: string | null;
  readonly branch_name: string | null;
  readonly updated_at: string | null;
}

/** `GET /location-mappings`: every location of the merchant with the branch it maps to (null: unmapped). */
export async function registerBMappings(scope: RegisterBScope): Promise<RegisterBMappingView[]> {
  await requireRegisterB(scope);
  const [locations, rows] = await Promise.all([scope.tdb.selectFrom('locations').select(['id', 'name']).orderBy('name').orderBy('id').execute(), mappingRows(scope)]);
  const byLocation = new Map(rows.map((r) => [r.location_id, r]));
  return locations.map((l) => {
    const m = byLocation.get(l.id);
    return { location_id: l.id, location_name: l.name, branch_id: m?.branch_id ?? null, branch_name: m?.branch_name ?? null, updated_at: m ? new Date(m.updated_at).toISOString() : null };
  });
}

/**
 * `PUT /location-mappings`: the body is the whole mapping set (a location left out is unmapped). A
 * location that is not the merchant's is 404 `location`; then every entry is checked and all failures
 * answered together as one 422 (`mappings.N.location_id` listed twice, `mappings.N.branch_id` unknown at
 * register-b or mapped twice). All or nothing: on any refusal no mapping changes.
 */
export async function saveRegisterBMappings(scope: RegisterBScope, client: RegisterBClient | null, mappings: readonly { location_id: string; branch_id: string }[]): Promise<RegisterBMappingView[]> {
  const c = await requireRegisterB(scope);
  for (const m of mappings) if (!isUuid(m.location_id) || !(await locationExists(scope.tdb, m.location_id.toLowerCase()))) throw errors.notFound('location');
  const branches = mappings.length > 0 ? await callRegisterB(() => needClient(client).branches(c.accountId)) : [];
  const known = new Map(branches.map((b) => [b.id, b]));
  // One pass in entry order, so the 422's summary names the first failing entry.
  const errs: FieldErrors = {};
  const seenLocations = new Set<string>();
  const seenBranches = new Set<string>();
  mappings.forEach((m, i) => {
    const loc = m.location_id.toLowerCase();
    if (seenLocations.has(loc)) errs[`mappings.${i}.location_id`] = ['The location is listed more than once.'];
    if (seenBranches.has(m.branch_id)) errs[`mappings.${i}.branch_id`] = ['The branch is mapped to more than one location.'];
    else if (!known.has(m.branch_id)) errs[`mappings.${i}.branch_id`] = ['The branch could not be found at register-b.'];
    seenLocations.add(loc);
    seenBranches.add(m.branch_id);
  });
  if (Object.keys(errs).length > 0) throw errors.validation(errs);
  const now = scope.now;
  await scope.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('register_b_mappings').where('merchant_id', '=', scope.merchant.id).execute();
    if (mappings.length > 0)
      await trx
        .insertInto('register_b_mappings')
        .values(mappings.map((m) => ({ merchant_id: scope.merchant.id, location_id: m.location_id.toLowerCase(), connection_id: c.connectionId, branch_id: m.branch_id, branch_name: catalogText(known.get(m.branch_id)!.name, 200), created_at: now, updated_at: now })))
        .execute();
  });
  await logRegisterB(scope.db, scope, c, { type: 'mappings_saved', detail: String(mappings.length) }, now);
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'register_b_mapping', properties: { mappings: mappings.length } });
  return registerBMappings(scope);
}

/**
 * `POST /locations/sync`: reads the branches again; a mapping to a branch that vanished is dropped, the
 * others get the branch's current name. Answers the branches and how many mappings were dropped.
 */
export async function syncRegisterBLocations(scope: RegisterBScope, client: RegisterBClient | null): Promise<{ branches: RegisterBBranchView[]; removed_mappings: number }> {
  const c = await requireRegisterB(scope);
  const branches: RegisterBBranch[] = await callRegisterB(() => needClient(client).branches(c.accountId));
  const known = new Map(branches.map((b) => [b.id, catalogText(b.name, 200)]));
  const now = scope.now;
  const removed = await scope.db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom('register_b_mappings').select(['location_id', 'branch_id', 'branch_name']).where('merchant_id', '=', scope.merchant.id).forUpdate().execute();
    let gone = 0;
    for (const r of rows) {
      const name = known.get(r.branch_id);
      if (name === undefined) {
        await trx.deleteFrom('register_b_mappings').where('merchant_id', '=', scope.merchant.id).where('location_id', '=', r.location_id).execute();
        gone++;
      } else if (name !== r.branch_name) {
        await trx.updateTable('register_b_mappings').set({ branch_name: name, updated_at: now }).where('merchant_id', '=', scope.merchant.id).where('location_id', '=', r.location_id).execute();
      }
    }
    return gone;
  });
  await logRegisterB(scope.db, scope, c, { type: 'locations_synced', detail: `branches=${branches.length} removed=${removed}` }, now);
  const byBranch = new Map((await mappingRows(scope)).map((m) => [m.branch_id, m.location_id]));
  return { branches: branches.map((b) => ({ id: b.id, name: b.name, location_id: byBranch.get(b.id) ?? null })), removed_mappings: removed };
}

/** `POST /probe-capabilities`: stores what register-b says the account can do; a capability gone switches its feature off. */
export async function probeRegisterBCapabilities(scope: RegisterBScope, client: RegisterBClient | null): Promise<RegisterBSettings> {
  const c = await requireRegisterB(scope);
  const capabilities = await callRegisterB(() => needClient(client).capabilities(c.accountId));
  const settings = await writeRegisterBSettings(
    scope.db,
    c,
    { capabilities, capabilities_probed_at: scope.now.toISOString(), ...(capabilities.live_inventory ? {} : { live_inventory: false }) },
    scope.now,
  );
  await logRegisterB(scope.db, scope, c, { type: 'capabilities_probed', detail: Object.entries(capabilities).map(([k, v]) => `${k}=${v}`).join(' ') }, scope.now);
  return settings;
}

/** `POST /toggle-live-inventory`: on only when the probed capabilities include live inventory (422 otherwise); off always. */
export async function toggleRegisterBLiveInventory(scope: RegisterBScope, enabled: boolean): Promise<RegisterBSettings> {
  const c = await requireRegisterB(scope);
  if (enabled && !c.settings.capabilities) throw errors.field('enabled', 'Probe the register-b capabilities before turning live inventory on.');
  if (enabled && !c.settings.capabilities!.live_inventory) throw errors.field('enabled', 'Live inventory is not available for this register-b account.');
  const settings = await writeRegisterBSettings(scope.db, c, { live_inventory: enabled }, scope.now);
  await logRegisterB(scope.db, scope, c, { type: 'live_inventory', detail: enabled ? 'on' : 'off' }, scope.now);
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'integration', properties: { provider: 'register-b', live_inventory: enabled } });
  return settings;
}

export interface DiagnoseCheck {
  readonly key: 'configured' | 'connected' | 'account_reachable' | 'locations_mapped' | 'last_sync';
  readonly status: 'ok' | 'warning' | 'error';
  readonly detail: string;
}

/**
 * `GET /diagnose`: a checklist — the client is configured, the connection is active, register-b answers
 * for the account, every location is mapped, and the last sync (scheduled or started by hand, from the
 * connection's log) succeeded. `healthy` when no check is an error. A disabled connection is diagnosed too.
 */
export async function diagnoseRegisterB(scope: RegisterBScope, client: RegisterBClient | null): Promise<{ healthy: boolean; checks: DiagnoseCheck[] }> {
  const c = await requireRegisterB(scope, { allowDisabled: true });
  const checks: DiagnoseCheck[] = [];
  checks.push(client ? { key: 'configured', status: 'ok', detail: 'The register-b partner API is configured.' } : { key: 'configured', status: 'error', detail: 'register-b is not configured.' });
  checks.push(c.status === 'active' ? { key: 'connected', status: 'ok', detail: `Connected to account ${c.accountId}.` } : { key: 'connected', status: 'error', detail: `The connection is ${c.status}.` });
  if (!client) checks.push({ key: 'account_reachable', status: 'error', detail: 'Not checked: register-b is not configured.' });
  else {
    try {
      const a = await client.account(c.accountId);
      checks.push(a.status === 'active' ? { key: 'account_reachable', status: 'ok', detail: `register-b answers for ${a.name}.` } : { key: 'account_reachable', status: 'error', detail: `The register-b account is ${a.status}.` });
    } catch (e) {
      const status = providerStatus(e);
      const detail = status === 401 ? 'register-b refused the partner credentials.' : status !== null && status < 500 ? (e as Error).message.replace(/^register-b: /, '') : 'register-b could not be reached.';
      checks.push({ key: 'account_reachable', status: 'error', detail });
    }
  }
  const [locations, mapped] = await Promise.all([scope.tdb.selectFrom('locations').select('id').execute(), mappingRows(scope)]);
  const mappedIds = new Set(mapped.map((m) => m.location_id));
  const unmapped = locations.filter((l) => !mappedIds.has(l.id)).length;
  checks.push({ key: 'locations_mapped', status: unmapped === 0 && locations.length > 0 ? 'ok' : mapped.length === 0 ? 'error' : 'warning', detail: `${locations.length - unmapped} of ${locations.length} locations mapped to a branch.` });
  const last = await scope.db
    .selectFrom('integration_events')
    .select(['event_type', 'status', 'external_id', 'created_at'])
    .where('connection_id', '=', c.connectionId)
    .where('kind', '=', 'sync')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!last) checks.push({ key: 'last_sync', status: 'warning', detail: 'No sync has run yet.' });
  else {
    const when = new Date(last.created_at).toISOString();
    const what = last.event_type === 'auto_sync' ? 'scheduled sync' : 'sync';
    checks.push(
      last.status === 'done'
        ? { key: 'last_sync', status: 'ok', detail: `The last ${what} (${when}) succeeded: ${last.external_id ?? ''}`.trim() }
        : { key: 'last_sync', status: last.status === 'not_configured' ? 'warning' : 'error', detail: `The last ${what} (${when}) ${last.status === 'not_configured' ? 'was not configured' : 'failed'}: ${last.external_id ?? ''}`.trim() },
    );
  }
  return { healthy: checks.every((x) => x.status !== 'error'), checks };
}
