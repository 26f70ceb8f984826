import type { TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';
import { inPersonProviders } from '../payments/in-person-provider.ts';

/**
 * `GET /back-office/payment-onboarding-status`: per location the caller may see, whether in-person
 * payments are ready: an in-person provider reported by the location's payment profile and at
 * least one live device bound to a terminal of that provider. Read from the records, never stored.
 */
const TERMINAL_COLUMN = { 'card-a': 'card_a_reader_id', 'card-b': 'card_b_terminal_id', 'platform-a': 'platform_a_device_id' } as const;

export interface PaymentOnboarding {
  locations: { location_id: string; name: string; in_person_provider: string | null; terminals: number; ready: boolean }[];
  complete: boolean;
}

export async function paymentOnboardingStatus(tdb: TenantDb, access: Access): Promise<PaymentOnboarding> {
  let q = tdb.selectFrom('locations').select(['id', 'name']);
  if (!access.allLocations) {
    const ids = [...access.locationIds];
    q = ids.length ? q.where('id', 'in', ids) : q.where((eb) => eb.val(false));
  }
  const locations = await q.orderBy('name').orderBy('id').execute();
  const devices = locations.length
    ? await tdb
        .selectFrom('devices')
        .select(['location_id', 'card_a_reader_id', 'card_b_terminal_id', 'platform_a_device_id'])
        .where('location_id', 'in', locations.map((l) => l.id))
        .where('deleted_at', 'is', null)
        .execute()
    : [];
  const providers = await inPersonProviders(tdb, locations.map((l) => l.id));
  const out = locations.map((l) => {
    const provider = providers.get(l.id) ?? null;
    const column = provider && provider in TERMINAL_COLUMN ? TERMINAL_COLUMN[provider as keyof typeof TERMINAL_COLUMN] : null;
    const terminals = column ? devices.filter((d) => d.location_id === l.id && d[column]).length : 0;
    return { location_id: l.id, name: l.name, in_person_provider: provider, terminals, ready: terminals > 0 };
  });
  return { locations: out, complete: out.length > 0 && out.every((l) => l.ready) };
}
