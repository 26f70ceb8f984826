import { Elysia, type AnyElysia } from 'elysia';
import { identifyKioskCustomer, kioskLoyaltyDetails, kioskLoyaltyLogin } from '@pos/core/kiosk/kiosk-customers';
import { listKioskOffers, validateKioskOffers } from '@pos/core/kiosk/kiosk-offers';
import { checkKioskUpdate, readKioskManifest, registerKioskPushToken } from '@pos/core/kiosk/kiosk-updates';
import { checkGiftCard } from '@pos/core/customers/gift-cards';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './kiosk-customers.schemas.ts';

const doc = (summary: string, description: string) => ({ tags: ['Kiosk'], security: [{ bearer: [] }], summary, description });

/**
 * The kiosk's non-payment routes (spec 1 "Kiosk": device-key, type:kiosk, tenant:kiosk, then the
 * device gates: 402 without an active subscription, liveness): customer identification and loyalty,
 * offers through the one pricing function, gift-card codes (throttled), app updates and push tokens.
 * Typed as `AnyElysia` for the app (TS2589); the handlers are checked against their schemas here.
 */
export function kioskCustomerRoutes(deps: ApiDeps): AnyElysia {
  return kioskCustomerRoutesTyped(deps);
}

function kioskCustomerRoutesTyped(deps: ApiDeps) {
  // Read once: a malformed manifest stops the API at start, not at the first kiosk.
  const manifest = readKioskManifest(deps.config.KIOSK_UPDATE_MANIFEST);
  const now = () => deps.clock.now();
  return new Elysia({ name: 'kiosk-customers' })
    .use(secured(deps, { types: ['kiosk'], deviceKey: true }))
    .post(
      '/kiosk/customer/identify',
      async ({ tenant, device, body }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.kioskCustomer, device!.id]]);
        return { data: await identifyKioskCustomer(tenant.db, device!, body, now()) };
      },
      {
        body: S.IdentifyBody,
        response: { 200: S.SessionResponse },
        detail: doc(
          'Identify a customer',
          'Finds the customer by phone (read in the location\'s country when national) or e-mail, or enrols a new one (optional `name`), and answers a loyalty token for `create-intent` with the points balance. Contacts are answered masked. Throttle `kiosk-customer`: 30 per minute per device.',
        ),
      },
    )
    .post(
      '/kiosk/loyalty',
      async ({ tenant, device, body }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.kioskCustomer, device!.id]]);
        return { data: await kioskLoyaltyLogin(tenant.db, device!, body, now()) };
      },
      {
        body: S.LoyaltyLoginBody,
        response: { 200: S.SessionResponse },
        detail: doc('Loyalty login', 'An enrolled customer by phone or e-mail (404 `Unable to locate the customer you requested.` otherwise) and a fresh loyalty token. Throttle `kiosk-customer`.'),
      },
    )
    .get('/kiosk/loyalty', async ({ tenant, device, query }) => ({ data: await kioskLoyaltyDetails(tenant.db, device!, query.loyalty_token, now()) }), {
      query: S.LoyaltyQuery,
      response: { 200: S.DetailsResponse },
      detail: doc('Loyalty details', 'Balance, program and recent points history of the customer behind a live loyalty token of this kiosk; an unknown, expired, spent or other kiosk\'s token is a 422 on `loyalty_token`.'),
    })
    .get('/kiosk/offers', async ({ tenant, device }) => ({ data: await listKioskOffers(tenant.db, device!.location_id, now()) }), {
      response: { 200: S.OffersResponse },
      detail: doc('Available offers', 'Active offers of the kiosk\'s location on the kiosk channel, with `available_now` from their schedule in the location\'s time zone.'),
    })
    .post(
      '/kiosk/offers/validate',
      async ({ tenant, device, body }) => ({
        data: await validateKioskOffers({ tdb: tenant.db, redis: deps.redis, merchantId: tenant.merchant.id, now: now() }, device!, body),
      }),
      {
        body: S.ValidateOffersBody,
        response: { 200: S.ValidateOffersResponse },
        detail: doc(
          'Validate offers against a basket',
          'Prices the basket with the one pricing function (the same quote `create-intent` charges) and answers, for each offer in `offer_ids` (or every active offer), whether it applied and its discount, or why not. An offer id that is not one of the merchant\'s offers is a 404. With `loyalty_token` and `reward_id`, the reward is priced into the quote as `create-intent` prices it (409 `insufficient_points`, 404 for an unknown reward).',
        ),
      },
    )
    .post(
      '/kiosk/gift-cards/validate',
      async ({ tenant, device, body, request, server }) => {
        await throttle(deps.redis, deps.env, [
          [THROTTLES.giftCardDevice, device!.id],
          [THROTTLES.giftCardAddress, deps.throttleAddress(request, server)],
        ]);
        return { data: await checkGiftCard(tenant.db, body.code, now()) };
      },
      {
        body: S.GiftCardBody,
        response: { 200: S.GiftCardResponse },
        detail: doc(
          'Validate a gift-card code',
          'Answers the balance (cents) and last four characters of an active gift card. Unknown, disabled and expired codes are the same 404 `Unable to locate the gift card you requested.` Throttle `gift-card-validate`: 10 per minute per device and 30 per minute per client address (429).',
        ),
      },
    )
    .get('/kiosk/updates/check', ({ query }) => ({ data: checkKioskUpdate(manifest, query.platform, query.version) }), {
      query: S.UpdateCheckQuery,
      response: { 200: S.UpdateCheckResponse },
      detail: doc('Check for app updates', 'Compares the running `version` with the `KIOSK_UPDATE_MANIFEST` entry of the `platform`: latest version, download URL when newer, and `mandatory` below its `min_version`.'),
    })
    .post(
      '/kiosk/updates/push/register',
      async ({ tenant, device, body }) => {
        await registerKioskPushToken(tenant.db, device!.id, body, now());
        return { status: 'success' as const };
      },
      { body: S.PushRegisterBody, response: { 200: S.Success }, detail: doc('Register a push token', 'Stores the kiosk\'s push token (one per device; a new call replaces it).') },
    );
}
