import type { Selectable } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { BRANDING_FONTS } from '../options/branding-fonts.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';
import { isUniqueViolation } from '@pos/db';
import { lockDefaults, switchDefault } from './default-switch.ts';

/**
 * Branding profiles (spec 1 "Settings"): colours, a heading and a body font from the branding font
 * option list (`/branding-font-options`), a logo (a content item of the merchant). The first profile
 * is the default; the default cannot be deleted; `set-default` moves the flag.
 */

export const UNKNOWN_FONT = 'The selected font is not one of the branding font options.';
export const DEFAULT_PROFILE_NOT_DELETABLE = 'The default branding profile cannot be deleted.';

const FONTS = new Set(BRANDING_FONTS.map(([family]) => family));

type Row = Selectable<TenantTables['branding_profiles']>;

export interface BrandingProfileView {
  id: string;
  name: string;
  is_default: boolean;
  primary_color: string;
  accent_color: string;
  background_color: string;
  text_color: string;
  heading_font: string;
  body_font: string;
  logo_content_id: string | null;
  created_at: string;
  updated_at: string;
}

const view = (r: Row): BrandingProfileView => ({
  id: r.id,
  name: r.name,
  is_default: r.is_default,
  primary_color: r.primary_color,
  accent_color: r.accent_color,
  background_color: r.background_color,
  text_color: r.text_color,
  heading_font: r.heading_font,
  body_font: r.body_font,
  logo_content_id: r.logo_content_id,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export interface BrandingInput {
  primary_color?: string;
  accent_color?: string;
  background_color?: string;
  text_color?: string;
  heading_font?: string;
  body_font?: string;
  logo_content_id?: string | null;
}

async function findProfile(db: TenantDb | TenantTx, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw errors.notFound('branding profile');
  let q = db.selectFrom('branding_profiles').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw errors.notFound('branding profile');
  return row;
}

/** Checks fonts against the option list and the logo against the merchant's contents (404). */
async function columns(db: TenantDb | TenantTx, input: BrandingInput): Promise<Record<string, unknown>> {
  const errs: Record<string, string[]> = {};
  for (const k of ['heading_font', 'body_font'] as const) if (input[k] !== undefined && !FONTS.has(input[k]!)) errs[k] = [UNKNOWN_FONT];
  if (Object.keys(errs).length) throw errors.validation(errs);
  if (input.logo_content_id) {
    // Read in the writing transaction and held FOR KEY SHARE until it commits: a content deleted at
    // the same moment either waits for this write (and clears the logo through its foreign key) or
    // is gone first, and the logo is this 404 (it was a 500 on the foreign key).
    const c = isUuid(input.logo_content_id) ? await db.selectFrom('contents').select('id').where('id', '=', input.logo_content_id).forKeyShare().executeTakeFirst() : undefined;
    if (!c) throw errors.notFound('content');
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) if (v !== undefined) out[k] = typeof v === 'string' && k.endsWith('_color') ? v.toUpperCase() : v;
  return out;
}

export async function listBrandingProfiles(tdb: TenantDb): Promise<BrandingProfileView[]> {
  return (await tdb.selectFrom('branding_profiles').selectAll().orderBy('is_default', 'desc').orderBy('name').orderBy('id').execute()).map(view);
}

/** `GET /branding-profiles/options`: select options `{value: id, label: name, is_default}`, by name. */
export async function brandingProfileOptions(tdb: TenantDb): Promise<{ value: string; label: string; is_default: boolean }[]> {
  const rows = await tdb.selectFrom('branding_profiles').select(['id', 'name', 'is_default']).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name, is_default: r.is_default }));
}

export async function showBrandingProfile(tdb: TenantDb, id: string): Promise<BrandingProfileView> {
  return view(await findProfile(tdb, id));
}

export async function createBrandingProfile(tdb: TenantDb, userId: string, input: BrandingInput & { name: string }): Promise<BrandingProfileView> {
  const { name, ...rest } = input;
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTenantTx(tdb, async (tx) => {
        const values = await columns(tx, rest);
        const first = !(await tx.selectFrom('branding_profiles').select('id').limit(1).executeTakeFirst());
        const row = await tx
          .insertInto('branding_profiles')
          .values({ id: Bun.randomUUIDv7(), name: name.trim(), is_default: first, ...values })
          .returningAll()
          .executeTakeFirstOrThrow();
        await logActivity(tx, { userId, action: 'created', subject: 'branding_profile', subjectId: row.id, properties: { name: row.name } });
        return view(row);
      });
    } catch (e) {
      // Two first profiles at once: the partial unique index keeps one default; the other runs again.
      if (attempt === 0 && isUniqueViolation(e, 'branding_profiles_one_default')) continue;
      throw e;
    }
  }
}

async function update(tdb: TenantDb, userId: string, id: string, input: BrandingInput & { name?: string }): Promise<BrandingProfileView> {
  return inTenantTx(tdb, async (tx) => {
    const row = await findProfile(tx, id, true);
    const values = await columns(tx, input);
    const updated = await tx.updateTable('branding_profiles').set({ ...values, updated_at: new Date() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'updated', subject: 'branding_profile', subjectId: row.id, properties: { fields: Object.keys(values).sort() } });
    return view(updated);
  });
}

export async function updateBrandingProfile(tdb: TenantDb, userId: string, id: string, input: BrandingInput): Promise<BrandingProfileView> {
  return update(tdb, userId, id, input);
}

export function renameBrandingProfile(tdb: TenantDb, userId: string, id: string, name: string): Promise<BrandingProfileView> {
  return update(tdb, userId, id, { name: name.trim() });
}

export async function setDefaultBrandingProfile(tdb: TenantDb, userId: string, id: string): Promise<BrandingProfileView> {
  return inTenantTx(tdb, async (tx) => {
    await lockDefaults(tx, 'branding_profiles');
    const row = await findProfile(tx, id, true);
    if (!row.is_default) {
      await switchDefault(tx, 'branding_profiles', row.id, new Date());
      await logActivity(tx, { userId, action: 'set_default', subject: 'branding_profile', subjectId: row.id });
    }
    return view(await tx.selectFrom('branding_profiles').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow());
  });
}

export async function deleteBrandingProfile(tdb: TenantDb, userId: string, id: string): Promise<void> {
  await inTenantTx(tdb, async (tx) => {
    const row = await findProfile(tx, id, true);
    if (row.is_default) throw errors.businessRule(DEFAULT_PROFILE_NOT_DELETABLE);
    await tx.deleteFrom('branding_profiles').where('id', '=', row.id).execute();
    await logActivity(tx, { userId, action: 'deleted', subject: 'branding_profile', subjectId: row.id, properties: { name: row.name } });
  });
}
