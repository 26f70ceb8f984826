import { Elysia } from 'elysia';
import { GenerationClient } from '@pos/providers/generation/generation-client';
import { generateDescription } from '@pos/core/generation/description-generator';
import { aiPhotoStatus, generateAiPhoto } from '@pos/core/generation/ai-photos';
import { creditBalance, creditPackageOptions } from '@pos/core/generation/ai-credits';
import { createCreditsCheckout, purchaseWithDefault } from '@pos/core/generation/ai-credit-purchases';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './ai-generation.schemas.ts';

const doc = (summary: string, description?: string) => ({
  detail: { tags: ['AI generation'], summary, description: ['Permission: - (none).', description].filter(Boolean).join(' '), security: [{ bearer: [] }] },
});

/**
 * `POST /back-office/description-generator/generate` and `/back-office/ai-photo/*` (spec 1 "Loyalty,
 * setup, utilities"; no permission of their own). The provider is `GENERATION_BASE_URL`; unset: 503.
 */
export function aiGenerationRoutes(deps: ApiDeps) {
  const client = deps.config.GENERATION_BASE_URL && deps.config.GENERATION_API_KEY ? new GenerationClient({ baseUrl: deps.config.GENERATION_BASE_URL, apiKey: deps.config.GENERATION_API_KEY }) : null;
  const back = `${(deps.config.APP_URL ?? 'http://localhost:3000').replace(/\/+$/, '')}/ai-photo`;
  return new Elysia({ name: 'ai-generation', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post(
      '/description-generator/generate',
      async ({ auth, tenant, body }) => {
        await throttle(deps.redis, deps.env, [
          [THROTTLES.descriptionUser, auth.userId],
          [THROTTLES.descriptionMerchant, tenant.merchant.id],
        ]);
        return { data: await generateDescription(client, body) };
      },
      {
        query: S.VendorQuery,
        body: S.DescriptionBody,
        response: { 200: S.DescriptionResponse },
        ...doc('Generate an item description', 'From the item name, optional keywords, language and tone. Free of credits; nothing is stored. 503 when the provider is not configured or does not answer. Throttle `description-generator`: 20 a minute per user and 200 an hour per merchant.'),
      },
    )
    .post(
      '/ai-photo/generate',
      async ({ tenant, auth, body }) => {
        // A provider refusal gives the credit back, so credits alone do not bound the calls made on our key.
        await throttle(deps.redis, deps.env, [
          [THROTTLES.aiPhotoUser, auth.userId],
          [THROTTLES.aiPhotoMerchant, tenant.merchant.id],
        ]);
        return { data: await generateAiPhoto(tenant.db, client, auth.userId, body.prompt) };
      },
      {
        query: S.VendorQuery,
        body: S.PhotoBody,
        response: { 200: S.GeneratedPhotoResponse },
        ...doc('Generate an AI photo', 'Costs one credit, taken in one guarded statement (the balance never goes below zero; 422 when it is empty). A provider failure gives the credit back, marks the photo failed and answers 503. Throttle `ai-photo`: 20 a minute per user and 100 an hour per merchant (429).'),
      },
    )
    .get('/ai-photo/status/:contentId', async ({ tenant, params }) => ({ data: await aiPhotoStatus(tenant.db, params.contentId) }), {
      query: S.VendorQuery,
      params: S.ContentParams,
      response: { 200: S.PhotoResponse },
      ...doc('Poll a generated photo', 'Another merchant\'s photo is a 404.'),
    })
    .get('/ai-photo/credits', async ({ tenant }) => ({ data: { balance: await creditBalance(tenant.db) } }), {
      query: S.VendorQuery,
      response: { 200: S.CreditsResponse },
      ...doc('AI photo credit balance'),
    })
    .get('/ai-photo/credits-package-options', () => ({ data: creditPackageOptions() }), {
      query: S.VendorQuery,
      response: { 200: S.PackagesResponse },
      ...doc('Credit packages on offer', 'Select options `{value: id, label, credits, price, currency}`; prices in cents, the label e.g. `10 credits — 5.00 EUR`.'),
    })
    .post(
      '/ai-photo/create-checkout-url',
      async ({ tenant, auth, body }) => ({
        data: await createCreditsCheckout(tenant.db, deps.payments.cardA, { userId: auth.userId, merchantId: tenant.merchant.id }, { packageId: body.package_id, successUrl: body.success_url ?? `${back}?purchase=success`, cancelUrl: body.cancel_url ?? `${back}?purchase=cancelled` }),
      }),
      {
        query: S.VendorQuery,
        body: S.CheckoutBody,
        response: { 200: S.CheckoutResponse },
        ...doc('Buy credits on the card-a hosted page', 'Answers the page URL; the credits are added once, when card-a reports the checkout paid (signed webhook, read back from card-a for the package\'s amount and currency).'),
      },
    )
    .post(
      '/ai-photo/purchase-with-default',
      async ({ tenant, auth, body }) => ({
        data: await purchaseWithDefault(tenant.db, deps.payments.cardA, { userId: auth.userId, merchantId: tenant.merchant.id }, { packageId: body.package_id, billingProfileId: body.billing_profile_id }),
      }),
      {
        query: S.VendorQuery,
        body: S.PurchaseBody,
        response: { 200: S.PurchaseResponse },
        ...doc('Buy credits with the saved card', 'Charges the default card of a billing profile\'s card-a customer (the given profile, else the oldest with a saved card) and credits the package at once; a decline is 422 and credits nothing. card-a away (503) leaves the purchase pending: card-a\'s signed success credits it later. The same package bought again while a purchase of it is pending (2 minutes) or just paid (10 s) is a 409.'),
      },
    );
}
