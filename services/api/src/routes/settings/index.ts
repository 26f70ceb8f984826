import { Elysia } from 'elysia';
import * as loc from '@pos/core/settings/locations';
import { showReceipt, updateReceipt } from '@pos/core/settings/receipts';
import * as lang from '@pos/core/settings/languages';
import * as brand from '@pos/core/settings/branding-profiles';
import * as bill from '@pos/core/settings/billing-profiles';
import * as billSub from '@pos/core/settings/billing-subscriptions';
import * as pay from '@pos/core/settings/payment-profiles';
import { requirePaymentProfileReach } from '@pos/core/settings/payment-profile-reach';
import { verifyVat } from '@pos/core/settings/vat-verify';
import { setupStatus } from '@pos/core/settings/setup-status';
import { paymentOnboardingStatus } from '@pos/core/settings/payment-onboarding';
import { clientLoggerConfig, recordClientLog } from '@pos/core/settings/client-logger';
import { requireGlobalAdmin } from '@pos/core/auth/caller-gates';
import { errors } from '@pos/kernel';
import { listJobs, monitoringSummary, queueCounts } from '@pos/core/operations/async-monitoring';
import { VatCheckClient } from '@pos/providers/vat-check/vat-check-client';
import { GeocodingClient } from '@pos/providers/geocoding/geocoding-client';
import { TranslationClient } from '@pos/providers/translation/translation-client';
import * as tr from '@pos/core/settings/translations';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationOwner, permission } from '../../plugins/guards.ts';
import * as S from './settings.schemas.ts';

const doc = (tag: string, summary: string, perm: string | null, description?: string) => ({
  detail: {
    tags: [tag],
    summary,
    description: [`Permission: ${perm ?? '- (none)'}.`, description].filter(Boolean).join(' '),
    security: [{ bearer: [] }],
  },
});
const L = 'Settings: locations';
const R = 'Settings: receipts';
const G = 'Settings: languages';
const B = 'Settings: branding profiles';
const T = 'Settings: translations';
const BP = 'Settings: billing profiles';
const PP = 'Settings: payment profiles';

/**
 * Settings > locations, receipts and languages (spec 1 "Settings", prefix `/back-office/settings`).
 * auth, type:backoffice, check-user-activity, admin-vendor-override. Location routes carry no
 * permission (spec) but stay inside the caller's location grant; every write logs an activity entry.
 */
export function settingsRoutes(deps: ApiDeps) {
  const vatClient = deps.config.VAT_CHECK_BASE_URL ? new VatCheckClient({ baseUrl: deps.config.VAT_CHECK_BASE_URL }) : null;
  const translator =
    deps.config.TRANSLATION_BASE_URL && deps.config.TRANSLATION_API_KEY ? new TranslationClient({ baseUrl: deps.config.TRANSLATION_BASE_URL, apiKey: deps.config.TRANSLATION_API_KEY }) : null;
  const geocoder = deps.config.GEOCODING_BASE_URL && deps.config.GEOCODING_API_KEY ? new GeocodingClient({ baseUrl: deps.config.GEOCODING_BASE_URL, apiKey: deps.config.GEOCODING_API_KEY, timeoutMs: 5_000 }) : null;
  return (
    new Elysia({ name: 'settings', prefix: '/back-office/settings' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      // Locations
      .get('/location-options', async ({ tenant, access }) => ({ data: await loc.locationOptions(tenant.db, await access()) }), {
        query: S.VendorQuery,
        response: { 200: S.LocationOptions },
        ...doc(L, 'Location select options', null, 'The caller\'s locations, by name: `{value: id, label: name, timezone, status}`.'),
      })
      .get('/locations/datatable', async ({ tenant, access, query }) => loc.locationDatatable(tenant.db, await access(), query), {
        query: S.LocationDatatableQuery,
        response: { 200: S.LocationTable },
        ...doc(L, 'Locations data table', null, 'The caller\'s locations; `search` over name, address and city; `status` filter; `sort` name, created_at, status, city.'),
      })
      .get(
        '/locations/address-suggestions',
        async ({ query }) => {
          // Suggestions only help typing: without a service, or with it down, the form still works (`available` false).
          if (!geocoder) return { data: [], available: false };
          try {
            const found = await geocoder.autocomplete(query.query, { country: query.country, limit: 5 });
            const data = found.map((g) => ({ label: g.label, address: g.street || null, postal_code: g.postal_code || null, city: g.city || null, country: g.country || null, latitude: g.lat, longitude: g.lng }));
            return { data, available: true };
          } catch (e) {
            deps.log.warn('address suggestions unavailable', { detail: e instanceof Error ? e.message : String(e) });
            return { data: [], available: false };
          }
        },
        {
          query: S.AddressQuery,
          response: { 200: S.AddressSuggestions },
          ...doc(L, 'Address suggestions', null, 'Up to 5 addresses matching `query` (3-200 characters), optionally in `country`, from the geocoding service. `available` false (and no suggestions) when no service is configured or it does not answer.'),
        },
      )
      .post(
        '/locations',
        async ({ tenant, access, auth, body, set }) => {
          set.status = 201;
          return { data: await loc.createLocation(tenant.db, await access(), auth.userId, body) };
        },
        {
          query: S.VendorQuery,
          body: S.CreateLocationBody,
          response: { 201: S.LocationResponse },
          ...doc(L, 'Create a location', null, 'Only a member with every location (403). `timezone` must be a zone of the IANA zone database (422 on `timezone`); it is stored as the database spells it.'),
        },
      )
      .post(
        '/locations/export',
        async ({ tenant, access, body }) => {
          const file = await loc.exportLocations(tenant.db, await access(), body.ids, deps.clock.now());
          return new Response(file.body, { headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` } });
        },
        {
          query: S.VendorQuery,
          body: S.ExportBody,
          response: { 200: S.CsvFile },
          ...doc(L, 'Export locations as CSV', null, 'The caller\'s locations (only `ids` when given), with a header row and a byte-order mark. An id that is not one of the merchant\'s locations is a 404; one outside the caller\'s grant a 403.'),
        },
      )
      .get('/locations/:id', async ({ tenant, access, params }) => ({ data: await loc.showLocation(tenant.db, await access(), params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        response: { 200: S.LocationResponse },
        ...doc(L, 'Show a location', null),
      })
      .get('/locations/:id/terminal-options', async ({ tenant, access, params }) => ({ data: await loc.terminalOptions(tenant.db, await access(), params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        response: { 200: S.TerminalOptions },
        ...doc(L, 'Payment terminals of a location', null, 'The card-a readers, card-b terminals and platform-a devices bound to the location\'s devices, and its in-person provider.'),
      })
      .put('/locations/:id', async ({ tenant, access, auth, params, body }) => ({ data: await loc.updateLocation(tenant.db, await access(), tenant.merchant.id, auth.userId, params.id, body, deps.clock.now()) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        body: S.UpdateLocationBody,
        response: { 200: S.LocationResponse },
        ...doc(L, 'Update a location', null, 'Only the fields sent; a null clears an optional field.'),
      })
      .put(
        '/locations/:id/status',
        async ({ tenant, access, auth, params, body }) => ({ data: await loc.setLocationStatus(tenant.db, await access(), tenant.merchant.id, auth.userId, params.id, body.status, deps.clock.now()) }),
        { params: S.IdParams, query: S.VendorQuery, body: S.StatusBody, response: { 200: S.LocationResponse }, ...doc(L, 'Set a location\'s status', null, '`active` or `inactive`.') },
      )
      .delete(
        '/locations/:id',
        async ({ tenant, access, auth, params }) => {
          await loc.deleteLocation(tenant.db, await access(), tenant.merchant.id, auth.userId, params.id);
          return { status: 'success' as const };
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          response: { 200: S.Success },
          ...doc(L, 'Delete a location', null, 'Only a member with every location (403); a location that devices, orders or menus refer to, with a card-a subscription that still bills, or with an integration connection that is not disabled (delivery, register mappings) is a 409 and stays. Its table-QR entries and public restaurant listing go with it.'),
        },
      )
      // Receipts
      .get('/receipts/:locationId', async ({ tenant, access, params }) => ({ data: await showReceipt(tenant.db, await access(), params.locationId) }), {
        params: S.LocationParams,
        query: S.VendorQuery,
        response: { 200: S.ReceiptResponse },
        ...doc(R, 'Receipt layout of a location', null, 'Defaults (`updated_at` null) until one is saved. Within the caller\'s location grant.'),
      })
      .put('/receipts/:locationId', async ({ tenant, access, auth, params, body }) => ({ data: await updateReceipt(tenant.db, await access(), auth.userId, params.locationId, body) }), {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.ReceiptBody,
        response: { 200: S.ReceiptResponse },
        // Before the body is validated: a member without it learnt the route's fields from a 422.
        transform: [locationOwner(), permission('EDIT_RECEIPTS', 'locationId')],
        ...doc(R, 'Save the receipt layout of a location', 'EDIT_RECEIPTS', 'Held for that location. Only the fields sent change.'),
      })
      // Languages
      .get('/languages', async ({ tenant }) => ({ data: await lang.listLanguages(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_LANGUAGE'),
        response: { 200: S.LanguageList },
        ...doc(G, 'Languages', 'VIEW_LANGUAGE', 'The default first, then by name.'),
      })
      .get('/languages/check-incomplete', async ({ tenant }) => ({ data: await lang.checkIncomplete(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_LANGUAGE'),
        response: { 200: S.Incomplete },
        ...doc(G, 'Languages missing translations', 'VIEW_LANGUAGE', 'For each published language other than the default: catalog texts (item and category names and descriptions) to translate, translated, missing.'),
      })
      .post(
        '/languages',
        async ({ tenant, auth, body, set }) => {
          set.status = 201;
          return { data: await lang.createLanguage(tenant.db, auth.userId, body) };
        },
        {
          query: S.VendorQuery,
          body: S.CreateLanguageBody,
          transform: permission('CREATE_LANGUAGE'),
          response: { 201: S.LanguageResponse },
          ...doc(G, 'Add a language', 'CREATE_LANGUAGE', 'The first language is published and the default; later ones start unpublished. A code already added is a 409.'),
        },
      )
      .post('/languages/set-default/:id', async ({ tenant, auth, params }) => ({ data: await lang.setDefaultLanguage(tenant.db, auth.userId, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('EDIT_LANGUAGE'),
        response: { 200: S.LanguageResponse },
        ...doc(G, 'Make a language the default', 'EDIT_LANGUAGE', 'Only a published language (422).'),
      })
      .post('/languages/publish/:id', async ({ tenant, auth, params }) => ({ data: await lang.publishLanguage(tenant.db, auth.userId, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('EDIT_LANGUAGE'),
        response: { 200: S.LanguageResponse },
        ...doc(G, 'Publish a language', 'EDIT_LANGUAGE'),
      })
      .post('/languages/unpublish/:id', async ({ tenant, auth, params }) => ({ data: await lang.unpublishLanguage(tenant.db, auth.userId, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('EDIT_LANGUAGE'),
        response: { 200: S.LanguageResponse },
        ...doc(G, 'Unpublish a language', 'EDIT_LANGUAGE', 'Not the default language (422).'),
      })
      .delete(
        '/languages/delete/:id',
        async ({ tenant, auth, params }) => {
          await lang.deleteLanguage(tenant.db, auth.userId, params.id);
          return { status: 'success' as const };
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          transform: permission('DELETE_LANGUAGE'),
          response: { 200: S.Success },
          ...doc(G, 'Delete a language', 'DELETE_LANGUAGE', 'Not the default language (422); its translations go with it.'),
        },
      )
      // Branding profiles
      .get('/branding-profiles', async ({ tenant }) => ({ data: await brand.listBrandingProfiles(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_BRANDING_PROFILE'),
        response: { 200: S.BrandingList },
        ...doc(B, 'Branding profiles', 'VIEW_BRANDING_PROFILE', 'The default first, then by name.'),
      })
      .get('/branding-profiles/options', async ({ tenant }) => ({ data: await brand.brandingProfileOptions(tenant.db) }), {
        query: S.VendorQuery,
        response: { 200: S.BrandingOptions },
        ...doc(B, 'Branding profile select options', null, 'By name: `{value: id, label: name, is_default}`.'),
      })
      .get('/branding-profiles/:id', async ({ tenant, params }) => ({ data: await brand.showBrandingProfile(tenant.db, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_BRANDING_PROFILE'),
        response: { 200: S.BrandingResponse },
        ...doc(B, 'Show a branding profile', 'VIEW_BRANDING_PROFILE'),
      })
      .post(
        '/branding-profiles',
        async ({ tenant, auth, body, set }) => {
          set.status = 201;
          return { data: await brand.createBrandingProfile(tenant.db, auth.userId, body) };
        },
        {
          query: S.VendorQuery,
          body: S.CreateBrandingBody,
          transform: permission('CREATE_BRANDING_PROFILE'),
          response: { 201: S.BrandingResponse },
          ...doc(B, 'Create a branding profile', 'CREATE_BRANDING_PROFILE', 'The first profile is the default. Fonts are values of `/branding-font-options` (422 otherwise); `logo_content_id` a content item of the merchant (404 otherwise).'),
        },
      )
      .post('/branding-profiles/set-default', async ({ tenant, auth, body }) => ({ data: await brand.setDefaultBrandingProfile(tenant.db, auth.userId, body.id) }), {
        query: S.VendorQuery,
        body: S.SetDefaultBody,
        transform: permission('EDIT_BRANDING_PROFILE'),
        response: { 200: S.BrandingResponse },
        ...doc(B, 'Make a branding profile the default', 'EDIT_BRANDING_PROFILE'),
      })
      .put('/branding-profiles/:id', async ({ tenant, auth, params, body }) => ({ data: await brand.updateBrandingProfile(tenant.db, auth.userId, params.id, body) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        body: S.UpdateBrandingBody,
        transform: permission('EDIT_BRANDING_PROFILE'),
        response: { 200: S.BrandingResponse },
        ...doc(B, 'Update a branding profile', 'EDIT_BRANDING_PROFILE', 'Colours, fonts and logo; only the fields sent.'),
      })
      .put('/branding-profiles/:id/name', async ({ tenant, auth, params, body }) => ({ data: await brand.renameBrandingProfile(tenant.db, auth.userId, params.id, body.name) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        body: S.RenameBody,
        transform: permission('EDIT_BRANDING_PROFILE'),
        response: { 200: S.BrandingResponse },
        ...doc(B, 'Rename a branding profile', 'EDIT_BRANDING_PROFILE'),
      })
      .delete(
        '/branding-profiles/:id',
        async ({ tenant, auth, params }) => {
          await brand.deleteBrandingProfile(tenant.db, auth.userId, params.id);
          return { status: 'success' as const };
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          transform: permission('DELETE_BRANDING_PROFILE'),
          response: { 200: S.Success },
          ...doc(B, 'Delete a branding profile', 'DELETE_BRANDING_PROFILE', 'Not the default profile (422).'),
        },
      )
      // Billing profiles
      .get('/billing-profiles', async ({ tenant }) => ({ data: await bill.listBillingProfiles(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_BILLING_PROFILES'),
        response: { 200: S.BillingList },
        ...doc(BP, 'Billing profiles', 'VIEW_BILLING_PROFILES', 'By name.'),
      })
      .get('/billing-profiles/options', async ({ tenant }) => ({ data: await bill.billingProfileOptions(tenant.db) }), {
        query: S.VendorQuery,
        response: { 200: S.BillingOptions },
        ...doc(BP, 'Billing profile select options', null, 'By name: `{value: id, label: name}`.'),
      })
      .get('/billing-profiles/:id', async ({ tenant, params }) => ({ data: await bill.showBillingProfile(tenant.db, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_BILLING_PROFILES'),
        response: { 200: S.BillingResponse },
        ...doc(BP, 'Show a billing profile', 'VIEW_BILLING_PROFILES'),
      })
      .get('/billing-profiles/:id/subscriptions', async ({ tenant, params }) => ({ data: await bill.billingProfileSubscriptions(tenant.db, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_BILLING_PROFILES'),
        response: { 200: S.BillingSubscriptionList },
        ...doc(BP, 'Subscriptions of a billing profile', 'VIEW_BILLING_PROFILES', 'The local records of the profile\'s card-a customer (kept in step by card-a webhooks), newest first.'),
      })
      .get('/billing-profiles/:id/past-bills', async ({ tenant, params }) => ({ data: await billSub.pastBills(tenant.db, deps.payments.cardA, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_BILLING_PROFILES'),
        response: { 200: S.PastBills },
        ...doc(BP, 'Past bills of a billing profile', 'VIEW_BILLING_PROFILES', 'The card-a invoices of the profile\'s customer, newest first; amounts in cents. 503 when card-a is not configured or unreachable.'),
      })
      .get(
        '/billing-profiles/:id/export',
        async ({ tenant, params }) => {
          const csv = await billSub.exportPastBills(tenant.db, deps.payments.cardA, params.id);
          return new Response(`\uFEFF${csv}`, { headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="billing-profile-${params.id}-bills.csv"` } });
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          response: { 200: S.CsvFile },
          transform: permission('VIEW_BILLING_PROFILES'),
          ...doc(BP, 'Export past bills as CSV', 'VIEW_BILLING_PROFILES', 'The past bills with a header row and a byte-order mark.'),
        },
      )
      .post('/billing-profiles/:id/subscriptions/:subId/cancel', async ({ tenant, access, auth, params }) => ({ data: await billSub.cancelSubscription(tenant.db, deps.payments.cardA, deps, { userId: auth.userId, access: await access() }, params.id, params.subId) }), {
        params: S.SubscriptionParams,
        query: S.VendorQuery,
        transform: permission('EDIT_BILLING_PROFILES'),
        response: { 200: S.SubscriptionActionResponse },
        ...doc(BP, 'Cancel a subscription at the end of its period', 'EDIT_BILLING_PROFILES', 'Through card-a; the devices keep serving until the period ends. An ended subscription is a 422.'),
      })
      .post('/billing-profiles/:id/subscriptions/:subId/reactivate', async ({ tenant, access, auth, params }) => ({ data: await billSub.reactivateSubscription(tenant.db, deps.payments.cardA, deps, { userId: auth.userId, access: await access() }, params.id, params.subId) }), {
        params: S.SubscriptionParams,
        query: S.VendorQuery,
        transform: permission('EDIT_BILLING_PROFILES'),
        response: { 200: S.SubscriptionActionResponse },
        ...doc(BP, 'Withdraw a scheduled cancellation', 'EDIT_BILLING_PROFILES', 'Through card-a. An ended subscription cannot be revived (422).'),
      })
      .post('/billing-profiles/:id/subscriptions/:subId/retry-payment', async ({ tenant, access, auth, params }) => ({ data: await billSub.retrySubscriptionPayment(tenant.db, deps.payments.cardA, deps, { userId: auth.userId, access: await access() }, params.id, params.subId) }), {
        params: S.SubscriptionParams,
        query: S.VendorQuery,
        transform: permission('EDIT_BILLING_PROFILES'),
        response: { 200: S.SubscriptionActionResponse },
        ...doc(BP, 'Pay the open bill of a subscription now', 'EDIT_BILLING_PROFILES', 'Through card-a with the subscription\'s payment method; no open bill or a declined payment is a 422.'),
      })
      .post(
        '/billing-profiles',
        async ({ tenant, auth, body, set }) => {
          set.status = 201;
          return { data: await bill.createBillingProfile(tenant.db, auth.userId, body.name) };
        },
        {
          query: S.VendorQuery,
          body: S.CreateBillingBody,
          transform: permission('CREATE_BILLING_PROFILES'),
          response: { 201: S.BillingResponse },
          ...doc(BP, 'Create a billing profile', 'CREATE_BILLING_PROFILES'),
        },
      )
      .put('/billing-profiles/:id', async ({ tenant, auth, params, body }) => ({ data: await bill.renameBillingProfile(tenant.db, auth.userId, params.id, body.name) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        body: S.RenameBody,
        transform: permission('EDIT_BILLING_PROFILES'),
        response: { 200: S.BillingResponse },
        ...doc(BP, 'Rename a billing profile', 'EDIT_BILLING_PROFILES'),
      })
      .delete(
        '/billing-profiles/:id',
        async ({ tenant, auth, params }) => {
          await bill.deleteBillingProfile(tenant.db, auth.userId, params.id);
          return { status: 'success' as const };
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          transform: permission('DELETE_BILLING_PROFILES'),
          response: { 200: S.Success },
          ...doc(BP, 'Delete a billing profile', 'DELETE_BILLING_PROFILES', 'Not while one of its subscriptions is active, trialing or past due (422).'),
        },
      )
      // Payment profiles
      .get('/payment-profiles', async ({ tenant }) => ({ data: await pay.listPaymentProfiles(tenant.db) }), {
        query: S.VendorQuery,
        transform: permission('VIEW_PAYMENT_PROFILES'),
        response: { 200: S.PaymentProfileList },
        ...doc(PP, 'Payment profiles', 'VIEW_PAYMENT_PROFILES', 'The default first, then by name.'),
      })
      .get('/payment-profiles/options', async ({ tenant }) => ({ data: await pay.paymentProfileOptions(tenant.db) }), {
        query: S.VendorQuery,
        response: { 200: S.PaymentProfileOptions },
        ...doc(PP, 'Payment profile select options', null, 'By name: `{value: id, label: name, is_default}`.'),
      })
      .get('/payment-profiles/:id', async ({ tenant, params }) => ({ data: await pay.showPaymentProfile(tenant.db, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_PAYMENT_PROFILES'),
        response: { 200: S.PaymentProfileResponse },
        ...doc(PP, 'Show a payment profile', 'VIEW_PAYMENT_PROFILES'),
      })
      .post(
        '/payment-profiles',
        async ({ tenant, auth, body, set }) => {
          set.status = 201;
          return { data: await pay.createPaymentProfile(tenant.db, auth.userId, body.name) };
        },
        {
          query: S.VendorQuery,
          body: S.CreateBillingBody,
          transform: permission('CREATE_PAYMENT_PROFILES'),
          response: { 201: S.PaymentProfileResponse },
          ...doc(PP, 'Create a payment profile', 'CREATE_PAYMENT_PROFILES', 'The first profile is the default.'),
        },
      )
      .put('/payment-profiles/:id', async ({ tenant, auth, params, body }) => ({ data: await pay.renamePaymentProfile(tenant.db, auth.userId, params.id, body.name) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        body: S.RenameBody,
        transform: permission('EDIT_PAYMENT_PROFILES'),
        response: { 200: S.PaymentProfileResponse },
        ...doc(PP, 'Rename a payment profile', 'EDIT_PAYMENT_PROFILES'),
      })
      .post('/payment-profiles/:id/default', async ({ tenant, access, auth, params }) => {
        await requirePaymentProfileReach(tenant.db, await access(), params.id, { becomingDefault: true });
        return { data: await pay.setDefaultPaymentProfile(tenant.db, auth.userId, params.id) };
      }, {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('EDIT_PAYMENT_PROFILES'),
        response: { 200: S.PaymentProfileResponse },
        ...doc(PP, 'Make a payment profile the default', 'EDIT_PAYMENT_PROFILES'),
      })
      .delete(
        '/payment-profiles/:id',
        async ({ tenant, access, auth, params }) => {
          await requirePaymentProfileReach(tenant.db, await access(), params.id);
          await pay.deletePaymentProfile(tenant.db, auth.userId, params.id);
          return { status: 'success' as const };
        },
        {
          params: S.IdParams,
          query: S.VendorQuery,
          transform: permission('DELETE_PAYMENT_PROFILES'),
          response: { 200: S.Success },
          ...doc(PP, 'Delete a payment profile', 'DELETE_PAYMENT_PROFILES', 'Not the default profile (422).'),
        },
      )
      // Translations
      .get('/translations', async ({ tenant, query }) => ({ data: await tr.listTranslations(tenant.db, query.language_id) }), {
        query: S.TranslationListQuery,
        transform: permission('VIEW_TRANSLATION'),
        response: { 200: S.TranslationList },
        ...doc(T, 'Saved translations of a language', 'VIEW_TRANSLATION'),
      })
      .get('/translations/datatable', async ({ tenant, query }) => tr.translationDatatable(tenant.db, query), {
        query: S.TranslationTableQuery,
        transform: permission('VIEW_TRANSLATION'),
        response: { 200: S.TranslationTable },
        ...doc(T, 'Catalog texts with their translation in a language', 'VIEW_TRANSLATION', 'Item and category names and descriptions; `missing` true lists only untranslated texts; `search` over the source and the translation.'),
      })
      .post('/translations', async ({ tenant, auth, body }) => ({ data: await tr.saveTranslation(tenant.db, auth.userId, body) }), {
        query: S.VendorQuery,
        body: S.SaveTranslationBody,
        transform: permission('EDIT_TRANSLATION'),
        response: { 200: S.TranslationRowResponse },
        ...doc(T, 'Save a translation', 'EDIT_TRANSLATION', 'An empty value removes it. The record must be the merchant\'s (404).'),
      })
      .post('/translations/translate', async ({ tenant, auth, body }) => ({ data: await tr.autoTranslate(tenant.db, translator, auth.userId, body) }), {
        query: S.VendorQuery,
        body: S.AutoTranslateBody,
        transform: permission('EDIT_TRANSLATION'),
        response: { 200: S.TranslationRowResponse },
        ...doc(T, 'Auto-translate one text', 'EDIT_TRANSLATION', 'Through the translation provider, into the language\'s code, and saved. 503 when no provider is configured or it does not answer; nothing is saved then.'),
      })
      .get('/translations/bulk/:id', async ({ tenant, params }) => ({ data: await tr.bulkStatus(tenant.db, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('VIEW_TRANSLATION'),
        response: { 200: S.BulkStatus },
        ...doc(T, 'Texts a language still lacks', 'VIEW_TRANSLATION'),
      })
      .post('/translations/bulk/:id', async ({ tenant, auth, params }) => ({ data: await tr.bulkTranslate(tenant.db, translator, auth.userId, params.id) }), {
        params: S.IdParams,
        query: S.VendorQuery,
        transform: permission('EDIT_TRANSLATION'),
        response: { 200: S.BulkResult },
        ...doc(T, 'Auto-translate the texts a language lacks', 'EDIT_TRANSLATION', `Up to ${tr.BULK_BATCH} per call; \`missing\` says how many remain. 503 as for one text.`),
      })
      // Utilities
      .post(
        '/vat/verify',
        async ({ auth, body }) => {
          await throttle(deps.redis, deps.env, [[THROTTLES.vatVerify, auth.userId]]);
          const data = await verifyVat(vatClient, body);
          if (data.result === 'unavailable') deps.log.warn('vat check unavailable', { country: data.country_code });
          return { data };
        },
        {
          query: S.VendorQuery,
          body: S.VatVerifyBody,
          response: { 200: S.VatVerifyResponse },
          ...doc('Settings: utilities', 'EU VAT live check', null, 'Throttle 30 per minute per user. Fails open: always 200 with `result` `valid`, `invalid`, `unavailable` (service or registry down) or `skipped` (no service configured, or a country outside the EU VAT area). `vat_number` may carry the country prefix (`BE 0123.456.749`) or take `country_code`.'),
        },
      )
  );
}

/** Spec 1 "Loyalty, setup, utilities": `GET /back-office/setup-status` (no permission of its own). */
export function setupRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'settings-setup', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/setup-status', async ({ tenant }) => ({ data: await setupStatus(tenant.db) }), {
      query: S.VendorQuery,
      response: { 200: S.SetupStatusResponse },
      ...doc('Settings: utilities', 'Setup completion', null, 'Steps in order (location with an address, catalog items, a published menu, an in-person payment provider, an activated device, a branding profile, a default language), each read from the records.'),
    })
    .get('/payment-onboarding-status', async ({ tenant, access }) => ({ data: await paymentOnboardingStatus(tenant.db, await access()) }), {
      query: S.VendorQuery,
      response: { 200: S.PaymentOnboardingResponse },
      ...doc('Settings: utilities', 'In-person payment readiness per location', null, 'For each location the caller may see: the in-person provider and how many live devices are bound to one of its terminals; ready when at least one is.'),
    });
}

/**
 * `POST /client-logger` (top level, `device-key`): a device's client error report. Logged; watchlisted
 * events are counted per device per bucket and a threshold crossing posts once to the alert webhook.
 */
export function clientLoggerRoutes(deps: ApiDeps) {
  const config = clientLoggerConfig(deps.config);
  return new Elysia({ name: 'client-logger' })
    .use(secured(deps, { types: ['kiosk', 'kds', 'pos'], deviceKey: true }))
    .post(
      '/client-logger',
      async ({ body, device }) => {
        // The report is the signed-in device's: the API key is shared by every app, so a `device_id` in
        // the body is only a claim; one naming another device is refused, not counted against it.
        const deviceId = device!.id;
        if (body.device_id !== undefined && body.device_id !== deviceId) throw errors.forbidden(CLIENT_LOG_OTHER_DEVICE);
        // Each report is a log line (written synchronously): one device token must not flood the logs.
        await throttle(deps.redis, deps.env, [[THROTTLES.clientLogger, deviceId]]);
        const entry = { ...body, device_id: deviceId };
        const fields = { device_id: deviceId, event: body.event, app_version: body.app_version ?? null, client_message: body.message?.slice(0, 500) ?? null };
        if (body.level === 'error' || body.level === 'critical') deps.log.warn('client error reported', fields);
        else deps.log.info('client log', fields);
        const outcome = await recordClientLog(deps.redis, config, entry, deps.clock.now(), (detail) => deps.log.warn('client-logger alert not delivered', { detail, event: body.event }));
        return { status: 'success' as const, counted: outcome.count !== null, alerted: outcome.alerted };
      },
      {
        body: S.ClientLogBody,
        response: { 200: S.ClientLogResponse },
        detail: {
          tags: ['Settings: utilities'],
          summary: 'Client error logging',
          security: [{ bearer: [] }],
          description:
            'device-key (`X-Client-API-Key`) and the device\'s own token (kiosk, kds or pos): the report is logged and counted as that device. `device_id` is optional; one that is not the signed-in device is 403. Watchlisted events (`CLIENT_LOGGER_WATCHLIST`) are counted per device, per event, per bucket (`CLIENT_LOGGER_BUCKET_SECONDS`); the report that reaches `CLIENT_LOGGER_ALERT_THRESHOLD` posts once to `CLIENT_LOGGER_ALERT_WEBHOOK_URL` (`alerted` true). No webhook configured: nothing is counted.',
        },
      },
    );
}

/** The 403 of a client log naming another device than the token's. */
export const CLIENT_LOG_OTHER_DEVICE = 'The device id is not the signed-in device.';

/**
 * `/back-office/async-monitoring`, `/summary`, `/queue?limit=` (spec 1 "Transactions and reports",
 * `global-admin`): bee-queue's real counts and jobs across every tenant.
 */
export function asyncMonitoringRoutes(deps: ApiDeps) {
  const M = 'Operations: async monitoring';
  const admin = async ({ auth }: { auth: { userId: string } }) => requireGlobalAdmin(deps.db, auth.userId);
  return new Elysia({ name: 'async-monitoring', prefix: '/back-office/async-monitoring' })
    .use(secured(deps, { types: ['backoffice'] }))
    .get('', async () => ({ data: await queueCounts(deps.redis) }), {
      transform: admin,
      response: { 200: S.QueueCountsResponse },
      ...doc(M, 'Job counts per queue', 'global-admin role', 'Waiting, active, delayed, failed and succeeded jobs of every bee-queue queue, across tenants.'),
    })
    .get('/summary', async () => ({ data: await monitoringSummary(deps.redis) }), {
      transform: admin,
      response: { 200: S.MonitoringSummaryResponse },
      ...doc(M, 'Totals and per-tenant pending and failed jobs', 'global-admin role', 'A job\'s tenant is the merchant of its payload; jobs without one are `central`.'),
    })
    .get('/queue', async ({ query }) => ({ data: await listJobs(deps.redis, query.limit ?? 50) }), {
      transform: admin,
      query: S.QueueJobsQuery,
      response: { 200: S.QueueJobsResponse },
      ...doc(M, 'Jobs not yet succeeded, newest first', 'global-admin role', '`limit` 1-1000 (default 50). A failed job carries the first line of its last error.'),
    });
}
