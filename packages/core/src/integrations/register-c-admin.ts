import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { logActivity } from '../activity/log-activity.ts';
import type { MerchantIntegrationScope } from './merchant-integrations.ts';
import { startOAuthFlow, type OAuthStartConfig } from './oauth-start.ts';
import { mappingQuery, mappingRow, registerCAccess, registerCFailure, registerCMapping, viaRegisterC, type RegisterCConfig, type RegisterCScope } from './register-c-access.ts';

/**
 * register-c administration (spec 1 "register-c"): the connect flow's start (`POST /oauth`), the
 * connection test, where our online and kiosk orders land at register-c (`order-settings` per mapping)
 * and which register-c payment method each of our payment methods is (`payment-methods`, merchant
 * level, kept in the connection's settings). Both settings are checked against register-c first.
 */

export type RegisterCOAuthConfig = OAuthStartConfig;

/** The provider's authorize URL with a signed, expiring, single-use state naming the merchant. */
export function startRegisterCOAuth(scope: Pick<MerchantIntegrationScope, 'merchant' | 'now'>, cfg: RegisterCOAuthConfig): { authorize_url: string; state: string; expires_at: string } {
  return startOAuthFlow('register-c', { merchantId: scope.merchant.id, locationId: null, now: scope.now }, cfg);
}

export type RegisterCTestResult =
  | { ok: true; account_id: string; businesses: number; locations: number }
  | { ok: false; account_id: string; provider_status: number; provider_code: string | null; message: string };

/** Calls register-c with the stored token: ok, or register-c's refusal (401/403) as data; unreachable is 503. */
export async function testRegisterC(scope: RegisterCScope, config: RegisterCConfig): Promise<RegisterCTestResult> {
  const access = await registerCAccess(scope, config);
  try {
    const list = await access.client.businesses();
    return { ok: true, account_id: access.accountId, businesses: list.length, locations: list.reduce((n, b) => n + b.locations.length, 0) };
  } catch (e) {
    if (e instanceof ProviderError && e.kind === 'http' && (e.status === 401 || e.status === 403))
      return { ok: false, account_id: access.accountId, provider_status: e.status, provider_code: e.code, message: e.message.replace(/^register-c: /, '').slice(0, 300) };
    return registerCFailure(e);
  }
}

export interface RegisterCChannelTarget {
  account_profile_code: string;
  table_number: number | null;
}

export interface RegisterCOrderSettings {
  /** null: our online orders are not sent to register-c. */
  online: RegisterCChannelTarget | null;
  kiosk: RegisterCChannelTarget | null;
}

export function orderSettingsOf(raw: Record<string, unknown>): RegisterCOrderSettings {
  const target = (v: unknown): RegisterCChannelTarget | null => {
    const o = v as { account_profile_code?: unknown; table_number?: unknown } | null;
    return o && typeof o.account_profile_code === 'string' ? { account_profile_code: o.account_profile_code, table_number: typeof o.table_number === 'number' ? o.table_number : null } : null;
  };
  return { online: target(raw.online), kiosk: target(raw.kiosk) };
}

/**
 * `PUT /mappings/{id}/order-settings`: each channel's account profile must exist at the mapped
 * register-c location, a dine-in (`local`) profile needs a table and a table must exist there; any
 * miss is 422 on its field and nothing is written.
 */
export async function saveRegisterCOrderSettings(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string, input: RegisterCOrderSettings): Promise<{ upvendo_location_id: string; register_c_location_id: string; order_settings: RegisterCOrderSettings }> {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  const loc = mapping.registerCLocationId;
  const channels = (['online', 'kiosk'] as const).filter((ch) => input[ch] !== null);
  if (channels.length > 0) {
    const [profiles, floorplans] = await viaRegisterC(() => Promise.all([access.client.accountProfiles(loc), access.client.floorplans(loc)]));
    const needTables = channels.some((ch) => input[ch]!.table_number !== null);
    const tables = needTables ? (await viaRegisterC(() => Promise.all(floorplans.map((f) => access.client.tables(loc, f.id))))).flat().map((t) => t.number) : [];
    const fieldErrors: Record<string, string[]> = {};
    for (const ch of channels) {
      const t = input[ch]!;
      const profile = profiles.find((p) => p.code === t.account_profile_code);
      if (!profile) fieldErrors[`${ch}.account_profile_code`] = ['The account profile does not exist at the register-c location.'];
      else if (profile.type === 'LOCAL' && t.table_number === null) fieldErrors[`${ch}.table_number`] = ['A dine-in account profile needs a table.'];
      if (t.table_number !== null && !tables.includes(t.table_number)) fieldErrors[`${ch}.table_number`] = ['The table does not exist at the register-c location.'];
    }
    if (Object.keys(fieldErrors).length > 0) throw errors.validation(fieldErrors);
  }
  const settings: RegisterCOrderSettings = { online: input.online, kiosk: input.kiosk };
  await scope.db
    .updateTable('register_c_mappings')
    .set({ order_settings: JSON.stringify(settings), updated_at: scope.now })
    .where('merchant_id', '=', scope.merchant.id)
    .where('location_id', '=', mapping.locationId)
    .execute();
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'register_c_order_settings', properties: { location_id: mapping.locationId } });
  return { upvendo_location_id: mapping.locationId, register_c_location_id: loc, order_settings: settings };
}

/** Our payment methods that can be mapped to a register-c payment method. */
export const OUR_PAYMENT_METHODS = ['card', 'cash', 'online', 'gift_card', 'voucher'] as const;
export type OurPaymentMethod = (typeof OUR_PAYMENT_METHODS)[number];
export type RegisterCPaymentMap = Partial<Record<OurPaymentMethod, string>>;

export function paymentMapOf(settings: Record<string, unknown>): RegisterCPaymentMap {
  const raw = (settings.payment_methods ?? {}) as Record<string, unknown>;
  const out: RegisterCPaymentMap = {};
  for (const k of OUR_PAYMENT_METHODS) if (typeof raw[k] === 'string') out[k] = raw[k] as string;
  return out;
}

/**
 * `PUT /payment-methods`: replaces the map. Every register-c id must be a payment method at every
 * mapped register-c location (`/financial/payment-methods`); with no mapped location there is nothing
 * to check against (422 `payment_methods`). Nothing is written on a refusal.
 */
export async function saveRegisterCPaymentMethods(scope: MerchantIntegrationScope, config: RegisterCConfig, map: RegisterCPaymentMap): Promise<{ payment_methods: RegisterCPaymentMap }> {
  const access = await registerCAccess(scope, config);
  const mappings = (await mappingQuery(scope.db).where('merchant_id', '=', scope.merchant.id).where('connection_id', '=', access.connectionId).orderBy('location_id').execute()).map(mappingRow);
  if (mappings.length === 0) throw errors.field('payment_methods', 'Map a location to register-c before mapping payment methods.');
  const fieldErrors: Record<string, string[]> = {};
  for (const m of mappings) {
    const known = new Set((await viaRegisterC(() => access.client.paymentMethods(m.registerCLocationId))).map((p) => p.id));
    for (const [ours, theirs] of Object.entries(map)) if (!known.has(theirs)) fieldErrors[`payment_methods.${ours}`] = ['The payment method does not exist at register-c.'];
  }
  if (Object.keys(fieldErrors).length > 0) throw errors.validation(fieldErrors);
  const clean = paymentMapOf({ payment_methods: map });
  await scope.db
    .updateTable('integration_connections')
    .set({ settings: JSON.stringify({ ...access.settings, payment_methods: clean }), updated_at: scope.now })
    .where('id', '=', access.connectionId)
    .execute();
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'register_c_payment_methods', properties: { methods: Object.keys(clean) } });
  return { payment_methods: clean };
}
