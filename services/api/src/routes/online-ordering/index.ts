import { Elysia, t } from 'elysia';
import { errors } from '@pos/kernel';
import { isCalendarDate, REQUEST_KEY_INVALID, REQUEST_KEY_PATTERN } from '@pos/domain';
import { availableTimeslots, describeStorefront, validateOnlineOffers } from '@pos/core/online-ordering/storefront';
import { createOnlinePayment, processPlatformAPayment, verifyOnlinePayment, type OnlinePaymentDeps } from '@pos/core/online-ordering/online-payment';
import { addressSuggestions, coordinatesToAddress, geocodingFromEnv } from '@pos/core/online-ordering/address-lookup';
import { anonymousUpvoter, nearbyRestaurants, restaurantCategories, topRestaurants, upvoteRestaurant } from '@pos/core/online-ordering/restaurant-suggestions';
import type { ApiDeps } from '../../context.ts';
import { resolveSecured } from '../../plugins/secured.ts';
import { signedInCustomer } from '@pos/core/customers/customer-profile';

/**
 * The upvoter key of the customer behind a customer bearer token, authenticated as on every customer
 * route: a bad, revoked (logged out) or erased customer's token is 401 `Invalid token`.
 */
async function customerOf(deps: ApiDeps, headers: Record<string, string | undefined>): Promise<string> {
  const s = await resolveSecured(deps, { types: ['customer'] }, { headers, query: {} });
  const c = await signedInCustomer(s.tenant.db, s.auth.customerId);
  // A customer belongs to a merchant: the same person at two merchants is two customers.
  return `${s.tenant.merchant.id}:${c.id}`;
}
import * as S from './online-ordering.schemas.ts';
import { optionalCustomer } from '../customer-account/index.ts';
import { authenticateOptional } from '../../middleware/authenticate.ts';
import { THROTTLES, failureThrottle, throttle } from '../../middleware/throttle.ts';

/**
 * `auth.optional, tenant:online-ordering` (spec 1): no token is a guest; a bad, expired or revoked token
 * is 401 and a customer of another merchant than `slug`'s is 404, whichever storefront route it reaches
 * (they were checked on the payment only). A valid token of another type (back office) is a guest.
 * Answers the signed-in customer's id, or null for a guest.
 */
async function storefrontCustomer(deps: ApiDeps, headers: Record<string, string | undefined>, slug: string): Promise<string | null> {
  const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  const claims = token ? await deps.tokens.verify(token) : null;
  const asCustomer = token !== undefined && (claims === null || claims.type === 'customer');
  return asCustomer ? (await optionalCustomer(deps, headers, slug)).customerId : null;
}

/**
 * The storefront's caller, worked out in a transform: spec 1's `auth` / `auth.optional` run before the
 * body is validated, so a bad token is 401 (and another merchant's customer 404) before any 422. Kept
 * per request for the handler.
 */
const callers = new WeakMap<Request, string | null>();
type CallerContext = { request: Request; headers: Record<string, string | undefined>; params: unknown };
const slugOf = (params: unknown) => (params as { slug?: string } | undefined)?.slug ?? '';

const doc = (summary: string, description?: string) => ({ detail: { tags: ['Online ordering'], summary, ...(description ? { description } : {}) } });

/**
 * Public online ordering (spec 1 "Online ordering and table QR ordering"): the storefront of a merchant
 * slug and the timeslots of one of its locations. The tenant is the slug's merchant; a location of
 * another merchant, or one with online ordering off, is a 404.
 */
export function onlineOrderingRoutes(deps: ApiDeps) {
  const pay: OnlinePaymentDeps = {
    db: deps.db,
    redis: deps.redis,
    providers: deps.payments,
    log: deps.log,
    now: () => deps.clock.now(),
    ...(deps.config.ONLINE_ORDERING_PUBLIC_URL ? { checkoutReturnUrl: deps.config.ONLINE_ORDERING_PUBLIC_URL } : {}),
  };
  const storefrontAuth = async (ctx: CallerContext) => void callers.set(ctx.request, await storefrontCustomer(deps, ctx.headers, slugOf(ctx.params)));
  /**
   * The upvote is optional auth (spec 1), as the other suggestion routes: a token, when sent, must be valid
   * (401). A customer counts once per customer; anyone else (no token, or another type's token, as on
   * the storefront where it is a guest) once per client address, hashed (`anonymousUpvoter`).
   */
  const upvoterAuth = async (ctx: CallerContext & { server: Parameters<ApiDeps['throttleAddress']>[1] }) => {
    const principal = await authenticateOptional(deps, ctx.headers.authorization);
    callers.set(ctx.request, principal?.type === 'customer' ? await customerOf(deps, ctx.headers) : anonymousUpvoter(deps.throttleAddress(ctx.request, ctx.server)));
  };
  const callerOf = (ctx: CallerContext): Promise<string | null> => (callers.has(ctx.request) ? Promise.resolve(callers.get(ctx.request)!) : storefrontCustomer(deps, ctx.headers, slugOf(ctx.params)));
  const geocoding = geocodingFromEnv(deps.config);
  // Every lookup is a paid provider call anyone can make: counted per client address (429 past the limit).
  const geocodingThrottle = async ({ request, server }: { request: Request; server: Parameters<ApiDeps['throttleAddress']>[1] }) => {
    await throttle(deps.redis, deps.env, [[THROTTLES.geocoding, deps.throttleAddress(request, server)]]);
  };
  // Optional auth (spec 1, restaurant suggestions): a token, when sent, must be valid (401 otherwise).
  const optionalAuth = async ({ headers }: { headers: Record<string, string | undefined> }) => {
    await authenticateOptional(deps, headers.authorization);
  };
  return new Elysia({ name: 'online-ordering', prefix: '/online-ordering' })
    .get('/address-suggestions', async (ctx) => ({ data: await addressSuggestions(geocoding, deps.log, ctx.query.q, ctx.query.country) }), {
      beforeHandle: geocodingThrottle,
      query: S.SuggestQuery,
      response: { 200: S.SuggestResponse },
      ...doc('Address autocomplete', 'Up to 5 addresses matching `q` (3 characters or more; shorter answers none), optionally in `country`, from the geocoding provider. 503 when it is not configured or unreachable. Throttle: 60 a minute per client address, shared with coordinates-to-address.'),
    })
    .get(
      '/restaurant-suggestions/nearby',
      async (ctx) => ({
        data: await nearbyRestaurants(deps.db, { lat: ctx.query.lat, lng: ctx.query.lng, radiusKm: ctx.query.radius_km ?? 10, limit: ctx.query.limit ?? 20, ...(ctx.query.category ? { category: ctx.query.category } : {}) }),
      }),
      { beforeHandle: optionalAuth, query: S.NearbyQuery, response: { 200: S.SuggestionsResponse }, ...doc('Nearby restaurants', 'Restaurants with online ordering within `radius_km` (default 10) of the point, nearest first, with `distance_km`.') },
    )
    .get('/restaurant-suggestions/top', async (ctx) => ({ data: await topRestaurants(deps.db, { limit: ctx.query.limit ?? 20, ...(ctx.query.category ? { category: ctx.query.category } : {}) }) }), {
      beforeHandle: optionalAuth,
      query: S.TopQuery,
      response: { 200: S.SuggestionsResponse },
      ...doc('Top restaurants', 'By customer upvotes, most first.'),
    })
    .get('/restaurant-suggestions/categories', async () => ({ data: await restaurantCategories(deps.db) }), {
      beforeHandle: optionalAuth,
      response: { 200: S.CategoriesResponse },
      ...doc('Restaurant categories', 'Categories of the listed restaurants with how many carry each.'),
    })
    .post(
      '/restaurant-suggestions/upvote',
      async (ctx) => ({ data: await upvoteRestaurant(deps.db, ctx.body.location_id, callers.get(ctx.request)!, deps.clock.now()) }),
      {
        transform: [upvoterAuth],
        body: S.UpvoteBody,
        response: { 200: S.UpvoteResponse },
        ...doc(
          'Upvote a restaurant',
          'Optional auth: once per customer with a customer token; without one (or with a token of another type) once per client address. A second upvote answers the same count with `counted: false`. A token that is sent must be valid (401).',
        ),
      },
    )
    .get('/coordinates-to-address', async (ctx) => ({ data: await coordinatesToAddress(geocoding, deps.log, ctx.query.lat, ctx.query.lng) }), {
      beforeHandle: geocodingThrottle,
      query: S.CoordinatesQuery,
      response: { 200: S.AddressResponse },
      ...doc('Reverse geocode', 'The nearest address of the geocoding provider, or null. Throttle: 60 a minute per client address, shared with address-suggestions.'),
    })
    .post(
      '/payment/process',
      // Card attempts, counted once the order is found and unpaid: each may be a new card, and a declined
      // card leaves the order open for the next: card testing through a guest checkout.
      async ({ body, request, server }) => {
        const address = deps.throttleAddress(request, server);
        const admit = (transactionId: string) =>
          throttle(deps.redis, deps.env, [
            [THROTTLES.onlineCardAttemptOrder, transactionId],
            [THROTTLES.onlineCardAttemptAddress, address],
          ]);
        return { data: await processPlatformAPayment(pay, body, admit) };
      },
      {
        body: S.ProcessBody,
        response: { 200: S.VerifiedResponse },
        ...doc(
          'Process a platform-a payment',
          'Pays the platform-a payment order of an online transaction with the tokenised card source, then captures with platform-a\'s answer. Throttle (429 `Too Many Attempts.`): 10 card attempts an hour per order and 30 per 10 minutes per client address; a paid order answers without counting.',
        ),
      },
    )
    .get('/:slug', async (ctx) => ({ data: await describeStorefront(deps.db, deps.redis, ctx.params.slug, deps.clock.now()) }), {
      params: S.SlugParams,
      response: { 200: S.StorefrontResponse },
      ...doc('Location info of a restaurant', 'Every location with online ordering enabled: address, zone, opening hours, open now, snooze, channels and the published online menu.'),
    })
    .post(
      '/:slug/:locationId/available-timeslots',
      async (ctx) => {
        const date = ctx.body?.date;
        if (date !== undefined && !isCalendarDate(date)) throw errors.field('date', 'The date field must be a date (YYYY-MM-DD).');
        return { data: await availableTimeslots(deps.db, ctx.params.slug, ctx.params.locationId, date, deps.clock.now()) };
      },
      {
        params: S.SlugLocationParams,
        transform: [storefrontAuth],
        // Its only field is optional: no body at all is today, as `{}` is.
        body: t.Optional(S.TimeslotsBody),
        response: { 200: S.TimeslotsResponse },
        ...doc(
          'Available timeslots',
          '15-minute slots of the business day computed in the location\'s IANA zone: opening hours (a window may cross midnight), preparation time, capacity per slot (completed orders in the slot), daylight-saving changes and a snooze.',
        ),
      },
    )
    .post(
      '/:slug/:locationId/offers/validate',
      async (ctx) => {
        return { data: await validateOnlineOffers(deps.db, deps.redis, ctx.params.slug, ctx.params.locationId, ctx.body, deps.clock.now()) };
      },
      {
        params: S.SlugLocationParams,
        transform: [storefrontAuth],
        body: S.OffersBody,
        response: { 200: S.OffersResponse },
        ...doc('Validate offers', 'Prices the basket on the online channel with the location\'s active offers: which apply and the discount. With `table_session_id` (a guest at a table) it prices on the table QR channel, as that guest\'s payment will. Nothing is stored.'),
      },
    )
    .post(
      '/:slug/:locationId/payment',
      async (ctx) => {
        // A retry of the same request (double click, a lost answer) sends its Idempotency-Key again.
        const requestKey = ctx.headers['idempotency-key'] ?? null;
        if (requestKey !== null && !REQUEST_KEY_PATTERN.test(requestKey)) throw errors.field('Idempotency-Key', REQUEST_KEY_INVALID);
        // A logged-in customer's order carries customer_id (loyalty earn, order history).
        const customerId = await callerOf(ctx);
        // Per client address and location, counted once the location takes orders (a 404 costs nothing):
        // one restaurant's orders and stock are what a flood takes.
        const address = deps.throttleAddress(ctx.request, ctx.server);
        const admit = (locationId: string) => throttle(deps.redis, deps.env, [[THROTTLES.onlinePayment, `${address}|${locationId}`]]);
        // Orders holding tracked stock unpaid: per table session for a table order (a venue's guests share
        // an address), else per client address and location.
        const admitHold = (locationId: string, tableSessionId: string | null) =>
          failureThrottle(deps.redis, deps.env, THROTTLES.onlineStockHold, tableSessionId ? `table:${tableSessionId}` : `${address}|${locationId}`);
        return { data: await createOnlinePayment(pay, ctx.params.slug, ctx.params.locationId, ctx.body, { customerId, admit, requestKey, admitHold }) };
      },
      {
      params: S.SlugLocationParams,
      transform: [storefrontAuth],
      body: S.PaymentBody,
      response: { 200: S.PaymentResponse },
      ...doc(
        'Create the online payment',
        'Prices the basket from the published online menu, creates the transaction and starts its payment (spec 3 "Online ordering payment creation"). `scheduled_for` must be an offered timeslot; without it the location must be open now. The local debit scheme with the intent setting needs `customer.name` (first and last name). Throttle: 30 a minute per client address and location; orders holding tracked stock or a place in a slot of limited capacity: 10 per 15 minutes per client address and location, or per table session for a table order (429 past it). An `Idempotency-Key` header (8-100 letters, digits, `-`, `_`; `idemp_{deviceId}_{timestampMs}`) makes a retry answer the order the first request created (same payment, same secret); the key with another body is 409 `idempotency_key_reused`, while the first request is still starting its payment 409 `request_in_progress`.',
      ),
    })
    .post('/:slug/:locationId/verify-payment', async (ctx) => {
      // Per client address and order, counted once the order is found (an unknown id asks no provider).
      const address = deps.throttleAddress(ctx.request, ctx.server);
      const admit = (transactionId: string) => throttle(deps.redis, deps.env, [[THROTTLES.onlineVerify, `${address}|${transactionId}`]]);
      return { data: await verifyOnlinePayment(pay, ctx.params.slug, ctx.params.locationId, ctx.body.transaction_id, admit) };
    }, {
      params: S.SlugLocationParams,
      transform: [storefrontAuth],
      body: S.VerifyBody,
      response: { 200: S.VerifiedResponse },
      ...doc('Verify the online payment', 'Asks the provider and captures once (spec 3 "Verification"); answers the transaction status. One provider check of an order at a time: a verify sent while one is under way waits for it and answers what it found. Throttle: 60 a minute per client address and order (429 past it).'),
    });
}
