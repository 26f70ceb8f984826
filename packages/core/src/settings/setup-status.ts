import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { inPersonProviders } from '../payments/in-person-provider.ts';

/**
 * `GET /back-office/setup-status`: which setup steps of the merchant are done, in the order the
 * back office walks them. Each step is read from the records themselves, never stored, so it cannot
 * drift from the data.
 */
export const SETUP_STEPS = [
  { key: 'location', label: 'Add a location with its address' },
  { key: 'catalog', label: 'Add items to the catalog' },
  { key: 'menu', label: 'Publish a menu' },
  { key: 'payments', label: 'Choose an in-person payment provider' },
  { key: 'device', label: 'Activate a device' },
  { key: 'branding', label: 'Create a branding profile' },
  { key: 'language', label: 'Set a default language' },
] as const;

export type SetupStepKey = (typeof SETUP_STEPS)[number]['key'];

export interface SetupStatus {
  steps: { key: SetupStepKey; label: string; done: boolean }[];
  completed: number;
  total: number;
  complete: boolean;
}

export async function setupStatus(tdb: TenantDb): Promise<SetupStatus> {
  const exists = async (q: { select: (s: any) => any }) => !!(await (q as any).select(sql`1`.as('x')).limit(1).executeTakeFirst());
  const [location, catalog, menu, payments, device, branding, language] = await Promise.all([
    exists(tdb.selectFrom('locations').where('address', 'is not', null).where(sql`btrim(address)`, '<>', '')),
    exists(tdb.selectFrom('items')),
    exists(tdb.selectFrom('menus').where('status', '=', 'published')),
    anyInPersonProvider(tdb),
    exists(tdb.selectFrom('devices').where('activated_at', 'is not', null).where('deleted_at', 'is', null)),
    exists(tdb.selectFrom('branding_profiles')),
    exists(tdb.selectFrom('languages').where('is_default', '=', true)),
  ]);
  const done: Record<SetupStepKey, boolean> = { location, catalog, menu, payments, device, branding, language };
  const steps = SETUP_STEPS.map((s) => ({ key: s.key, label: s.label, done: done[s.key] }));
  const completed = steps.filter((s) => s.done).length;
  return { steps, completed, total: steps.length, complete: completed === steps.length };
}

/** The payments step: some location's payment profile reports an in-person provider. */
async function anyInPersonProvider(tdb: TenantDb): Promise<boolean> {
  const ids = (await tdb.selectFrom('locations').select('id').execute()).map((l) => l.id);
  return [...(await inPersonProviders(tdb, ids)).values()].some((p) => p !== null);
}
