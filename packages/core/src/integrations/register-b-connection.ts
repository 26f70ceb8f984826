import { sql } from 'kysely';
import { EXTERNAL_ID_MAX, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { RegisterBCapabilities } from '@pos/providers/register-b/register-b-client';
import { requireMerchantConnection, type MerchantIntegrationScope } from './merchant-integrations.ts';
import { REGISTER_B } from './register-b-admin.ts';

/**
 * What every register-b administration use case starts from: the merchant's register-b connection
 * (its `external_ref` is the register-b account), its settings (probed capabilities, the live
 * inventory switch), the translation of provider failures, and the connection's admin log.
 */
export type RegisterBScope = Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant' | 'userId' | 'now'>;

export interface RegisterBSettings {
  /** What `POST /probe-capabilities` last read from register-b; null before the first probe. */
  readonly capabilities: RegisterBCapabilities | null;
  readonly capabilities_probed_at: string | null;
  readonly live_inventory: boolean;
}

export interface RegisterBConnection {
  readonly connectionId: string;
  readonly accountId: string;
  readonly status: string;
  readonly settings: RegisterBSettings;
}

export function registerBSettingsOf(raw: Record<string, unknown> | null | undefined): RegisterBSettings {
  const s = raw ?? {};
  const c = s.capabilities as Partial<RegisterBCapabilities> | null | undefined;
  const capabilities =
    c && typeof c.live_inventory === 'boolean' && typeof c.relations === 'boolean' && typeof c.pricing === 'boolean' ? { live_inventory: c.live_inventory, relations: c.relations, pricing: c.pricing } : null;
  return {
    capabilities,
    capabilities_probed_at: typeof s.capabilities_probed_at === 'string' ? s.capabilities_probed_at : null,
    live_inventory: s.live_inventory === true,
  };
}

/**
 * The merchant's register-b connection. None, or a disabled one: 404 `Unable to locate the integration
 * you requested.` (the answer of `requireMerchantConnection`), so a merchant without register-b learns
 * nothing more from any route.
 */
export async function requireRegisterB(scope: Pick<RegisterBScope, 'db' | 'tdb' | 'merchant'>, opts: { allowDisabled?: boolean } = {}): Promise<RegisterBConnection> {
  const target = await requireMerchantConnection(scope, REGISTER_B);
  if (target.status !== 'active' && !opts.allowDisabled) throw errors.notFound('integration');
  const row = await scope.db.selectFrom('integration_connections').select(['external_ref', 'settings']).where('id', '=', target.connectionId).executeTakeFirstOrThrow();
  return { connectionId: target.connectionId, accountId: row.external_ref, status: target.status, settings: registerBSettingsOf(row.settings) };
}

/**
 * Merges `patch` into the connection's settings (other keys are kept) in one statement: a read, merge
 * and write lost one of two concurrent patches (`probe-capabilities` beside `toggle-live-inventory`).
 */
export async function writeRegisterBSettings(db: CentralDb, c: RegisterBConnection, patch: Partial<RegisterBSettings>, now: Date): Promise<RegisterBSettings> {
  const row = await db
    .updateTable('integration_connections')
    .set({ settings: sql`coalesce(settings, '{}'::jsonb) || ${JSON.stringify(patch)}::jsonb`, updated_at: now })
    .where('id', '=', c.connectionId)
    .returning('settings')
    .executeTakeFirstOrThrow();
  return registerBSettingsOf(row.settings);
}

/**
 * A provider failure as the client sees it: unreachable, timing out, 5xx, an unreadable answer or our
 * partner token refused -> 503 (nothing the caller can fix); any other refusal -> 409 with register-b's
 * message and reason `provider_refused`. Call sites translate the 404s/422s that name the caller's input first.
 */
export function registerBFailure(e: unknown): never {
  if (e instanceof ProviderError) {
    if (e.kind === 'http' && e.status === 401) throw errors.unavailable('register-b refused the partner credentials.');
    if (e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 429)
      throw errors.conflict(`register-b refused the request: ${e.message.replace(/^register-b: /, '')}`, { reason: 'provider_refused' });
    throw errors.unavailable('register-b could not be reached.');
  }
  throw e;
}

/** Runs a provider call, translating its failure (see `registerBFailure`). */
export async function callRegisterB<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    return registerBFailure(e);
  }
}

/** The HTTP status of a register-b refusal, or null when `e` is something else. */
export const providerStatus = (e: unknown): number | null => (e instanceof ProviderError && e.kind === 'http' ? e.status : null);

/** One line of the connection's log (`integration_events`, kind `admin` or `sync`). */
export async function logRegisterB(db: CentralDb, scope: Pick<RegisterBScope, 'merchant'>, c: RegisterBConnection, e: { kind?: 'admin' | 'sync'; type: string; detail: string | null; status?: string }, now: Date): Promise<void> {
  await db
    .insertInto('integration_events')
    .values({
      id: Bun.randomUUIDv7(),
      connection_id: c.connectionId,
      merchant_id: scope.merchant.id,
      location_id: null,
      provider: REGISTER_B,
      kind: e.kind ?? 'admin',
      event_type: e.type,
      event_id: Bun.randomUUIDv7(),
      external_id: e.detail?.slice(0, EXTERNAL_ID_MAX) ?? null,
      status: e.status ?? 'done',
      created_at: now,
    })
    .execute();
}
