import { Elysia, t } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import type { BackofficeScope } from '@pos/core/devices/device-records';
import { createKdsProfile, deleteKdsProfile, getKdsProfile, kdsProfileOptions, listKdsProfiles, updateKdsProfile } from '@pos/core/kitchen/kds-profiles';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';
import { KDS_MINUTES_MAX, KDS_SETTING_MESSAGES, KDS_SORTS } from '@pos/domain/kitchen/kds-settings';

const Iso = t.String({ format: 'date-time' });
const Name = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const minutes = (k: keyof typeof KDS_MINUTES_MAX) => Int({ minimum: 1, maximum: KDS_MINUTES_MAX[k], error: KDS_SETTING_MESSAGES[k] });
export const SettingsFields = {
  recall_window_minutes: minutes('recall_window_minutes'),
  late_after_minutes: minutes('late_after_minutes'),
  sort: t.Union([t.Literal(KDS_SORTS[0]), t.Literal(KDS_SORTS[1])], { error: KDS_SETTING_MESSAGES.sort }),
  show_modifiers: t.Boolean({ error: KDS_SETTING_MESSAGES.show_modifiers }),
  play_sound: t.Boolean({ error: KDS_SETTING_MESSAGES.play_sound }),
};
export const KdsSettings = t.Object(SettingsFields);
const SettingsInput = t.Object(
  {
    recall_window_minutes: t.Optional(SettingsFields.recall_window_minutes),
    late_after_minutes: t.Optional(SettingsFields.late_after_minutes),
    sort: t.Optional(SettingsFields.sort),
    show_modifiers: t.Optional(SettingsFields.show_modifiers),
    play_sound: t.Optional(SettingsFields.play_sound),
  },
  { additionalProperties: false },
);
const Profile = t.Object({ id: t.String(), name: t.String(), settings: KdsSettings, devices_count: Int(), created_at: Iso, updated_at: Iso });
const VendorQuery = t.Object(vendorIdField());
const IdParams = t.Object({ id: PathId() });

const doc = (summary: string, description?: string) => ({
  detail: { tags: ['KDS profiles'], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] },
});

async function scopeOf(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access> }): Promise<BackofficeScope> {
  return { db: deps.db, tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, userId: ctx.auth.userId, access: await ctx.access(), now: deps.clock.now() };
}
const gate = (slug: string) => [firstPartyPos(), permission(slug)];

/**
 * Spec 2 `/kds-profiles` (under `/back-office`): the display settings of kitchen displays, stored as
 * the device profiles of type kds. auth, type:backoffice, admin-vendor-override, first-party-pos.
 */
export function kdsProfileRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'kds-profiles', prefix: '/back-office/kds-profiles' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async (ctx) => ({ data: await listKdsProfiles(await scopeOf(deps, ctx)) }), {
      query: VendorQuery,
      response: { 200: t.Object({ data: t.Array(Profile) }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('List KDS profiles', 'By name, with their materialised settings and how many devices use each.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await createKdsProfile(await scopeOf(deps, ctx), ctx.body) };
      },
      {
        query: VendorQuery,
        body: t.Object({ name: Name, settings: t.Optional(SettingsInput) }, { additionalProperties: false }),
        response: { 201: t.Object({ data: Profile }) },
        transform: gate('CREATE_DEVICE_PROFILE'),
        ...doc('Create a KDS profile', 'Settings not given take their defaults (recall window 30 min, late after 15 min, priority first, modifiers shown, sound on).'),
      },
    )
    .get('/options', async (ctx) => ({ data: await kdsProfileOptions(await scopeOf(deps, ctx)) }), {
      query: VendorQuery,
      response: { 200: t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String() })) }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('KDS profile options'),
    })
    .get('/:id', async (ctx) => ({ data: await getKdsProfile(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: IdParams,
      query: VendorQuery,
      response: { 200: t.Object({ data: Profile }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('Show a KDS profile'),
    })
    .put('/:id', async (ctx) => ({ data: await updateKdsProfile(await scopeOf(deps, ctx), ctx.params.id, ctx.body) }), {
      params: IdParams,
      query: VendorQuery,
      body: t.Object({ name: t.Optional(Name), settings: t.Optional(SettingsInput) }, { additionalProperties: false }),
      response: { 200: t.Object({ data: Profile }) },
      transform: gate('EDIT_DEVICE_PROFILE'),
      ...doc('Update a KDS profile', 'The settings given are merged over the current ones.'),
    })
    .delete('/:id', async (ctx) => ({ status: 'success' as const, unbound_devices: await deleteKdsProfile(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: IdParams,
      query: VendorQuery,
      response: { 200: t.Object({ status: t.Literal('success'), unbound_devices: Int() }) },
      transform: gate('DELETE_DEVICE_PROFILE'),
      ...doc('Delete a KDS profile', 'Its devices are unbound; `unbound_devices` says how many.'),
    });
}
