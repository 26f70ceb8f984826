import { Elysia } from 'elysia';
import * as acct from '@pos/core/settings/payment-profile-accounts';
import { attachBillingPaymentMethod } from '@pos/core/settings/billing-payment-method';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { requirePaymentProfileReach } from '@pos/core/settings/payment-profile-reach';
import { permission } from '../../plugins/guards.ts';
import { IdParams, VendorQuery } from '../settings/settings.schemas.ts';
import * as S from './settings-provider-accounts.schemas.ts';

const doc = (tag: string, summary: string, perm: string, description?: string) => ({
  detail: { tags: [tag], summary, description: [`Permission: ${perm}.`, description].filter(Boolean).join(' '), security: [{ bearer: [] }] },
});
const PP = 'Settings: payment profiles';
const BP = 'Settings: billing profiles';

/**
 * Settings routes that act at a payment provider (spec 1 "Settings", prefix `/back-office/settings`):
 * a payment profile's card-a connected account and card-b account, and the billing profile's card-a
 * payment method. auth, type:backoffice, admin-vendor-override; the permission of the spec's table.
 */
export function settingsProviderAccountRoutes(deps: ApiDeps) {
  const cardA = deps.payments.cardA;
  const appUrl = (deps.config.APP_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  return new Elysia({ name: 'settings-provider-accounts', prefix: '/back-office/settings' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post(
      '/payment-profiles/:id/card-a/url',
      async ({ tenant, access, auth, params, body }) => {
        await requirePaymentProfileReach(tenant.db, await access(), params.id);
        const back = `${appUrl}/settings/payment-profiles/${params.id}`;
        const data = await acct.cardAOnboardingUrl(tenant.db, cardA, deps, {
          userId: auth.userId,
          merchantId: tenant.merchant.id,
          profileId: params.id,
          returnUrl: body?.return_url ?? back,
          refreshUrl: body?.refresh_url ?? back,
          country: body?.country ?? 'BE',
        });
        return { data };
      },
      {
        params: IdParams,
        query: VendorQuery,
        body: S.OnboardingBody,
        transform: permission('EDIT_PAYMENT_PROFILES'),
        response: { 200: S.OnboardingResponse },
        ...doc(PP, 'card-a onboarding link', 'EDIT_PAYMENT_PROFILES', 'Creates the profile\'s card-a connected account on the first call, then answers the provider\'s single-use onboarding URL.'),
      },
    )
    .post('/payment-profiles/:id/card-a/account-session', async ({ tenant, access, params }) => {
      // The session's embedded onboarding edits the account (bank details): held like the writes.
      await requirePaymentProfileReach(tenant.db, await access(), params.id);
      return { data: await acct.cardAAccountSession(tenant.db, cardA, params.id) };
    }, {
      params: IdParams,
      query: VendorQuery,
      transform: permission('VIEW_PAYMENT_PROFILES'),
      response: { 200: S.AccountSessionResponse },
      ...doc(PP, 'card-a account session', 'VIEW_PAYMENT_PROFILES', 'A client secret for the provider\'s embedded onboarding and payouts components; 422 before onboarding started.'),
    })
    .get('/payment-profiles/:id/card-a/payouts', async ({ tenant, params, query }) => acct.cardAPayouts(tenant.db, cardA, params.id, query), {
      params: IdParams,
      query: S.PayoutsQuery,
      transform: permission('VIEW_PAYMENT_PROFILES'),
      response: { 200: S.PayoutsResponse },
      ...doc(PP, 'card-a payouts', 'VIEW_PAYMENT_PROFILES', 'One provider page, newest first (`limit` 1-100, default 10; `starting_after` the last payout id seen). Amounts in cents.'),
    })
    .get('/payment-profiles/:id/card-a/payouts/datatable', async ({ tenant, params, query }) => acct.cardAPayoutDatatable(tenant.db, cardA, params.id, query), {
      params: IdParams,
      query: S.PayoutTableQuery,
      transform: permission('VIEW_PAYMENT_PROFILES'),
      response: { 200: S.PayoutTable },
      ...doc(PP, 'card-a payouts as a data table', 'VIEW_PAYMENT_PROFILES', 'The newest 1,000 payouts, paged (`page`, `per_page`).'),
    })
    .put('/payment-profiles/:id/card-a/descriptor', async ({ tenant, access, auth, params, body }) => {
      await requirePaymentProfileReach(tenant.db, await access(), params.id);
      return { data: await acct.setCardADescriptor(tenant.db, cardA, auth.userId, params.id, body.statement_descriptor) };
    }, {
      params: IdParams,
      query: VendorQuery,
      body: S.DescriptorBody,
      transform: permission('EDIT_PAYMENT_PROFILES'),
      response: { 200: S.AccountResponse },
      ...doc(PP, 'Set the card-a statement descriptor', 'EDIT_PAYMENT_PROFILES', 'The provider\'s rule applies (5-22 characters, a letter, none of < > \\ \' " *): its refusal is 422 with its message.'),
    })
    .put('/payment-profiles/:id/card-a/business-website', async ({ tenant, access, auth, params, body }) => {
      await requirePaymentProfileReach(tenant.db, await access(), params.id);
      return { data: await acct.setCardABusinessWebsite(tenant.db, cardA, auth.userId, params.id, body.url) };
    }, {
      params: IdParams,
      query: VendorQuery,
      body: S.WebsiteBody,
      transform: permission('EDIT_PAYMENT_PROFILES'),
      response: { 200: S.AccountResponse },
      ...doc(PP, 'Set the card-a business website', 'EDIT_PAYMENT_PROFILES'),
    })
    .put('/payment-profiles/:id/card-a/payout-schedule', async ({ tenant, access, auth, params, body }) => {
      await requirePaymentProfileReach(tenant.db, await access(), params.id);
      return { data: await acct.setCardAPayoutSchedule(tenant.db, cardA, auth.userId, params.id, body) };
    }, {
      params: IdParams,
      query: VendorQuery,
      body: S.PayoutScheduleBody,
      transform: permission('EDIT_PAYMENT_PROFILES'),
      response: { 200: S.AccountResponse },
      ...doc(PP, 'Set the card-a payout schedule', 'EDIT_PAYMENT_PROFILES', '`interval` manual, daily, weekly (with `weekly_anchor`) or monthly (with `monthly_anchor`).'),
    })
    .post('/payment-profiles/:id/card-b/account', async ({ tenant, access, auth, params, body }) => {
      await requirePaymentProfileReach(tenant.db, await access(), params.id);
      return { data: await acct.setCardBAccount(tenant.db, auth.userId, params.id, body.account_id) };
    }, {
      params: IdParams,
      query: VendorQuery,
      body: S.CardBAccountBody,
      transform: permission('EDIT_PAYMENT_PROFILES'),
      response: { 200: S.PaymentProfileResponse },
      ...doc(PP, 'Set the card-b merchant account', 'EDIT_PAYMENT_PROFILES', 'One payment profile per card-b account (422 otherwise).'),
    })
    .post(
      '/billing-profiles/:id',
      async ({ tenant, access, auth, params, body }) => ({
        data: await attachBillingPaymentMethod(tenant.db, cardA, deps, {
          userId: auth.userId,
          access: await access(),
          merchantId: tenant.merchant.id,
          profileId: params.id,
          paymentMethod: body.payment_method,
        }),
      }),
      {
        params: IdParams,
        query: VendorQuery,
        body: S.AttachPaymentMethodBody,
        transform: permission('EDIT_BILLING_PROFILES'),
        response: { 200: S.AttachPaymentMethodResponse },
        ...doc(BP, 'Attach a payment method', 'EDIT_BILLING_PROFILES', 'The card-a payment method becomes the default of the profile\'s card-a customer (created on the first attach). It pays the profile\'s subscriptions: every location they pay for must be in the caller\'s grant (403).'),
      },
    );
}
