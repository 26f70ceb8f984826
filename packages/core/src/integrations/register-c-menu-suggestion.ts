import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import type { MerchantIntegrationScope } from './merchant-integrations.ts';
import { applyRegisterCMenuDiff, menuDiffDigest, registerCMenuDiff, registerCSourceItems, type RegisterCApplyCounts, type RegisterCMenuDiff } from './register-c-catalog.ts';
import { registerCAccess, registerCMapping, viaRegisterC, type RegisterCConfig, type RegisterCScope } from './register-c-access.ts';

/**
 * The register-c menu suggestion of one of our locations (spec 1 "menu-suggestion"): the difference
 * between register-c's items at the mapped location and our catalog there (`diff`), applied in full
 * (`adopt`), put aside until it changes (`dismiss`, a digest of the diff on the mapping row), or
 * register-c made the location's menu source so syncs create its new items too (`use`).
 */
export interface RegisterCSuggestion extends RegisterCMenuDiff {
  upvendo_location_id: string;
  register_c_location_id: string;
  digest: string;
  /** The merchant dismissed exactly this difference. */
  dismissed: boolean;
  menu_source: boolean;
}

async function current(scope: RegisterCScope, config: RegisterCConfig, locationId: string) {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  const source = await viaRegisterC(() => registerCSourceItems(access.client, mapping.registerCLocationId));
  const diff = await registerCMenuDiff(scope.tdb, mapping.locationId, source);
  return { mapping, diff, digest: menuDiffDigest(diff) };
}

export async function registerCMenuSuggestion(scope: RegisterCScope, config: RegisterCConfig, locationId: string): Promise<RegisterCSuggestion> {
  const { mapping, diff, digest } = await current(scope, config, locationId);
  return { upvendo_location_id: mapping.locationId, register_c_location_id: mapping.registerCLocationId, ...diff, digest, dismissed: mapping.suggestionDismissedDigest === digest, menu_source: mapping.menuSource };
}

/** Applies the current difference (adds, updates, hides) and clears a dismissal. */
export async function adoptRegisterCMenuSuggestion(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string): Promise<{ upvendo_location_id: string; counts: RegisterCApplyCounts }> {
  const { mapping, diff } = await current(scope, config, locationId);
  const counts = await applyRegisterCMenuDiff(scope.tdb, mapping.locationId, diff, { create: true, now: scope.now });
  await scope.db.updateTable('register_c_mappings').set({ suggestion_dismissed_digest: null, updated_at: scope.now }).where('merchant_id', '=', scope.merchant.id).where('location_id', '=', mapping.locationId).execute();
  await logActivity(scope.tdb, { userId: scope.userId, action: 'adopted', subject: 'register_c_menu_suggestion', properties: { location_id: mapping.locationId, ...counts } });
  return { upvendo_location_id: mapping.locationId, counts };
}

/** Dismisses the current difference; an empty one has nothing to dismiss (422). */
export async function dismissRegisterCMenuSuggestion(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string): Promise<{ upvendo_location_id: string; digest: string; dismissed: true }> {
  const { mapping, diff, digest } = await current(scope, config, locationId);
  if (diff.to_add.length + diff.to_update.length + diff.missing.length === 0) throw errors.businessRule('There is no menu suggestion to dismiss.', { reason: 'no_suggestion' });
  await scope.db.updateTable('register_c_mappings').set({ suggestion_dismissed_digest: digest, updated_at: scope.now }).where('merchant_id', '=', scope.merchant.id).where('location_id', '=', mapping.locationId).execute();
  await logActivity(scope.tdb, { userId: scope.userId, action: 'dismissed', subject: 'register_c_menu_suggestion', properties: { location_id: mapping.locationId } });
  return { upvendo_location_id: mapping.locationId, digest, dismissed: true };
}

/** Makes register-c the location's menu source (no provider call: the next sync acts on it). */
export async function useRegisterCMenu(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string): Promise<{ upvendo_location_id: string; menu_source: true }> {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  await scope.db.updateTable('register_c_mappings').set({ menu_source: true, updated_at: scope.now }).where('merchant_id', '=', scope.merchant.id).where('location_id', '=', mapping.locationId).execute();
  await logActivity(scope.tdb, { userId: scope.userId, action: 'updated', subject: 'register_c_menu_source', properties: { location_id: mapping.locationId } });
  return { upvendo_location_id: mapping.locationId, menu_source: true };
}
