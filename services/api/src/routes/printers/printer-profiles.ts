import { Elysia, t } from 'elysia';
import { createPrinterProfile, deletePrinterProfile, getPrinterProfile, listPrinterProfiles, printerProfileOptions, updatePrinterProfile } from '@pos/core/printers/printer-profiles';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

const Iso = t.String({ format: 'date-time' });
const Name = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const Fields = {
  paper_width_mm: t.Union([t.Literal(58), t.Literal(80)], { error: 'The paper width mm must be 58 or 80.' }),
  poll_interval_seconds: Int({ minimum: 1, maximum: 86_400, error: 'The poll interval seconds must be a whole number between 1 and 86400.' }),
  receipt_footer: t.Array(t.String({ maxLength: 48, error: 'A receipt footer line may not be greater than 48 characters.' }), { maxItems: 4, error: 'The receipt footer may have at most 4 lines.' }),
  print_kitchen_modifiers: t.Boolean({ error: 'The print kitchen modifiers field must be true or false.' }),
};
const Settings = t.Object(Fields);
const SettingsInput = t.Object(
  { paper_width_mm: t.Optional(Fields.paper_width_mm), poll_interval_seconds: t.Optional(Fields.poll_interval_seconds), receipt_footer: t.Optional(Fields.receipt_footer), print_kitchen_modifiers: t.Optional(Fields.print_kitchen_modifiers) },
  { additionalProperties: false },
);
const Profile = t.Object({ id: t.String(), name: t.String(), settings: Settings, printers_count: Int(), created_at: Iso, updated_at: Iso });
const VendorQuery = t.Object(vendorIdField());
const IdParams = t.Object({ id: PathId() });
const doc = (summary: string, description?: string) => ({ detail: { tags: ['Printer profiles'], summary, ...(description ? { description } : {}), security: [{ bearer: [] }] } });
const gate = (slug: string) => [firstPartyPos(), permission(slug)];

/** Spec 2 `/printer-profiles` (under `/back-office`): auth, type:backoffice, admin-vendor-override, first-party-pos, permission. */
export function printerProfileRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'printer-profiles', prefix: '/back-office/printer-profiles' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async ({ tenant }) => ({ data: await listPrinterProfiles(tenant.db) }), {
      query: VendorQuery,
      response: { 200: t.Object({ data: t.Array(Profile) }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('List printer profiles', 'By name, with their settings and how many live printers use each.'),
    })
    .post(
      '',
      async ({ tenant, body, set }) => {
        set.status = 201;
        return { data: await createPrinterProfile(tenant.db, body, deps.clock.now()) };
      },
      {
        query: VendorQuery,
        body: t.Object({ name: Name, settings: t.Optional(SettingsInput) }, { additionalProperties: false }),
        response: { 201: t.Object({ data: Profile }) },
        transform: gate('CREATE_DEVICE_PROFILE'),
        ...doc('Create a printer profile', 'Settings not given take their defaults (80 mm, poll every 5 s, no footer, kitchen modifiers printed).'),
      },
    )
    .get('/options', async ({ tenant }) => ({ data: await printerProfileOptions(tenant.db) }), {
      query: VendorQuery,
      response: { 200: t.Object({ data: t.Array(t.Object({ value: t.String(), label: t.String() })) }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('Printer profile options'),
    })
    .get('/:id', async ({ tenant, params }) => ({ data: await getPrinterProfile(tenant.db, params.id) }), {
      params: IdParams,
      query: VendorQuery,
      response: { 200: t.Object({ data: Profile }) },
      transform: gate('VIEW_DEVICE_PROFILE'),
      ...doc('Show a printer profile'),
    })
    .put('/:id', async ({ tenant, params, body, access }) => ({ data: await updatePrinterProfile(tenant.db, await access(), params.id, body, deps.clock.now()) }), {
      params: IdParams,
      query: VendorQuery,
      body: t.Object({ name: t.Optional(Name), settings: t.Optional(SettingsInput) }, { additionalProperties: false }),
      response: { 200: t.Object({ data: Profile }) },
      transform: gate('EDIT_DEVICE_PROFILE'),
      ...doc('Update a printer profile', 'The settings given are merged over the current ones.'),
    })
    .delete('/:id', async ({ tenant, params, access }) => ({ status: 'success' as const, unbound_printers: await deletePrinterProfile(tenant.db, await access(), params.id) }), {
      params: IdParams,
      query: VendorQuery,
      response: { 200: t.Object({ status: t.Literal('success'), unbound_printers: Int() }) },
      transform: gate('DELETE_DEVICE_PROFILE'),
      ...doc('Delete a printer profile', 'Its printers are unbound; `unbound_printers` says how many.'),
    });
}
