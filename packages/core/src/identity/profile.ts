import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isCountryCode } from '../options/countries.ts';
import { UNKNOWN_COUNTRY } from '../settings/locations.ts';

export interface UserProfile {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  business_info: Record<string, unknown>;
  is_global_admin: boolean;
  two_factor_enabled: boolean;
  merchant: { id: string; slug: string; name: string; pos_provider: string | null; started_at: string | null };
}

export async function getProfile(db: CentralDb, userId: string, merchantId: string): Promise<UserProfile> {
  const u = await db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  const m = await db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst();
  if (!u || !m) throw errors.notFound('user');
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    phone: u.phone,
    business_info: u.business_info,
    is_global_admin: u.is_global_admin,
    two_factor_enabled: u.two_factor_enabled,
    merchant: { id: m.id, slug: m.slug, name: m.name, pos_provider: m.pos_provider, started_at: m.started_at?.toISOString() ?? null },
  };
}

export async function updatePersonalInfo(db: CentralDb, userId: string, input: { name: string; phone?: string | null; two_factor_enabled?: boolean }): Promise<void> {
  // Blank after trimming is no name (as at registration and for invitations).
  const name = input.name.trim();
  if (!name) throw errors.field('name', 'The name field is required.');
  await db
    .updateTable('users')
    .set({
      name,
      // Absent keeps the stored value (as for two_factor_enabled); null clears it.
      ...(input.phone === undefined ? {} : { phone: input.phone }),
      ...(input.two_factor_enabled === undefined ? {} : { two_factor_enabled: input.two_factor_enabled }),
    })
    .where('id', '=', userId)
    .execute();
}

export interface BusinessInfo {
  company_name?: string;
  vat_number?: string;
  address?: string;
  city?: string;
  postal_code?: string;
  country?: string;
}

export async function updateBusinessInfo(db: CentralDb, userId: string, input: BusinessInfo): Promise<void> {
  // A country of `GET /country-options`, stored upper-case, as a location's.
  if (input.country !== undefined && !isCountryCode(input.country)) throw errors.field('country', UNKNOWN_COUNTRY);
  if (input.country !== undefined) input = { ...input, country: input.country.toUpperCase() };
  const u = await db.selectFrom('users').select('business_info').where('id', '=', userId).executeTakeFirstOrThrow();
  await db.updateTable('users').set({ business_info: JSON.stringify({ ...u.business_info, ...input }) }).where('id', '=', userId).execute();
}

/** `start-using`: marks the merchant as started once; later calls keep the first instant. */
export async function startUsing(db: CentralDb, merchantId: string, now: Date): Promise<void> {
  await db.updateTable('merchants').set({ started_at: now }).where('id', '=', merchantId).where('started_at', 'is', null).execute();
}
