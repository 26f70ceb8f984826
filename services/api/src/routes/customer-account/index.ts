import { Elysia, t, type AnyElysia } from 'elysia';
import { errors, type ThrottleRule } from '@pos/kernel';
import type { CustomerPrincipal } from '@pos/core/auth/principal';
import { countryOptions } from '@pos/core/options/countries';
import { guestOrderIds, signedInCustomer, updatePersonalInfo } from '@pos/core/customers/customer-profile';
import { addAddress, customerView, deleteAddress, listAddresses, orderDetail, orderSummaries } from '@pos/core/customers/customer-views';
import { customerLocations, customerLoyalties, customerLoyaltyDetail } from '@pos/core/customers/customer-app';
import { merchantBySlug, type MerchantTenant } from '@pos/core/customers/customer-login';
import type { ApiDeps } from '../../context.ts';
import { secured, resolveSecured } from '../../plugins/secured.ts';
import { bearerToken } from '../../middleware/authenticate.ts';
import { revokeToken } from '@pos/core/auth/revocation';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './customer-account.schemas.ts';
import { isUuid } from '@pos/domain/ids';

const doc = (summary: string, description: string) => ({ tags: ['Customer'], security: [{ bearer: [] }], summary, description });
const ADDRESS_LABELS = ['Home', 'Work', 'Other'];
const COUNTRIES = new Set(countryOptions({}).map((c) => c.value));

/** The signed-in customer's row (401 when the customer was erased). */
const me = (tenant: TenantContext, auth: CustomerPrincipal) => signedInCustomer(tenant.db, auth.customerId);

/** `{slug}` must name the token's own merchant: another merchant's slug is a 404 like an unknown one. */
function sameMerchant(tenant: TenantContext, slug: string) {
  if (tenant.merchant.slug !== slug) throw errors.notFound('merchant');
}

/**
 * The customer app (spec 1 "Customer authenticated": auth, type:customer): profile, logout, personal
 * info, addresses, loyalties and locations; plus order history and order detail under `auth.optional`
 * with their throttles (5 and 10 per minute per client address).
 */
export function customerAccountRoutes(deps: ApiDeps): AnyElysia {
  return new Elysia({ name: 'customer-account' }).use(customerAppRoutes(deps)).use(customerOrderRoutes(deps));
}

function customerAppRoutes(deps: ApiDeps) {
  const now = () => deps.clock.now();
  return new Elysia({ name: 'customer-app' })
    .use(secured(deps, { types: ['customer'] }))
    .get('/customer/user', async ({ tenant, auth }) => ({ data: customerView(await me(tenant, auth)) }), {
      response: { 200: S.ProfileResponse },
      detail: doc('Customer profile', 'The signed-in customer.'),
    })
    .post(
      '/customer/logout',
      async ({ tenant, auth }) => {
        await me(tenant, auth);
        await revokeToken(deps.redis, auth.jti, auth.exp);
        return { status: 'success' as const };
      },
      { response: { 200: S.Success }, detail: doc('Customer logout', 'Revokes this token: a later request with it is 401 `Invalid token`.') },
    )
    .get('/customer/personal-info', async ({ tenant, auth }) => ({ data: customerView(await me(tenant, auth)) }), {
      response: { 200: S.ProfileResponse },
      detail: doc('Read personal info', 'Name, e-mail, phone and marketing consent.'),
    })
    .post(
      '/customer/personal-info',
      async ({ tenant, auth, body, request, server }) => {
        // The "taken" answer tells who is a customer: contact changes are counted per customer and per address.
        const limitContactChange = () =>
          throttle(deps.redis, deps.env, [
            [THROTTLES.customerContactChange, `${tenant.merchant.id}:${auth.customerId}`],
            [THROTTLES.customerContactChangeAddress, deps.throttleAddress(request, server as never)],
          ]);
        const updated = await updatePersonalInfo(tenant.db, await me(tenant, auth), body, now(), limitContactChange);
        return { data: customerView(updated) };
      },
      {
        body: S.PersonalInfoBody,
        response: { 200: S.ProfileResponse },
        detail: doc(
          'Update personal info',
          'The fields given; an e-mail or phone another customer of the merchant holds is a 422 on that field. A request giving an e-mail or phone other than the customer\'s own counts against 10 per hour per customer and 20 per hour per client address (429 `Too Many Attempts.` past either, nothing written), taken or not.',
        ),
      },
    )
    .get('/customer/addresses', async ({ tenant, auth }) => ({ data: await listAddresses(tenant.db, (await me(tenant, auth)).id) }), {
      response: { 200: S.AddressList },
      detail: doc('Customer addresses', 'The default first.'),
    })
    .get(
      '/customer/addresses/options',
      async ({ tenant, auth }) => {
        await me(tenant, auth);
        return { data: { countries: countryOptions({}).map((c) => ({ value: c.value, label: c.label })), labels: ADDRESS_LABELS.map((l) => ({ value: l, label: l })) } };
      },
      { response: { 200: S.AddressOptions }, detail: doc('Address form options', 'Countries (ISO codes) and address labels.') },
    )
    .post(
      '/customer/addresses',
      async ({ tenant, auth, body }) => {
        const c = await me(tenant, auth);
        if (!COUNTRIES.has(body.country.toUpperCase())) throw errors.field('country', 'The selected country is invalid.');
        return { data: await addAddress(tenant.db, c.id, body, now(), errors.invalidToken) };
      },
      { body: S.AddressBody, response: { 200: S.AddressResponse }, detail: doc('Add an address', 'The first address, or one with `is_default`, becomes the default. At most 20 per customer.') },
    )
    .delete(
      '/customer/addresses/:addressId',
      async ({ tenant, auth, params }) => {
        const c = await me(tenant, auth);
        const ok = isUuid(params.addressId) && (await deleteAddress(tenant.db, c.id, params.addressId, errors.invalidToken));
        if (!ok) throw errors.notFound('address');
        return { status: 'success' as const };
      },
      { params: S.AddressParams, response: { 200: S.Success }, detail: doc('Delete an address', 'Another customer\'s address is a 404. When the default goes, the oldest remaining address becomes the default.') },
    )
    .get(
      '/customer/loyalties/:slug',
      async ({ tenant, auth, params }) => {
        sameMerchant(tenant, params.slug);
        return { data: await customerLoyalties(tenant.db, (await me(tenant, auth)).id) };
      },
      { params: S.SlugParams, response: { 200: S.LoyaltiesResponse }, detail: doc('Loyalty programs', 'The customer\'s points and the merchant\'s active programs. Another merchant\'s slug: 404.') },
    )
    .get(
      '/customer/loyalties/:slug/:locationId',
      async ({ tenant, auth, params }) => {
        sameMerchant(tenant, params.slug);
        const c = await me(tenant, auth);
        if (!isUuid(params.locationId)) throw errors.notFound('loyalty program');
        return { data: await customerLoyaltyDetail(tenant.db, c.id, params.locationId) };
      },
      { params: S.SlugLocationParams, response: { 200: S.LoyaltyDetailResponse }, detail: doc('Loyalty program detail', 'Rewards (with `available` for the balance) and the recent points history. A location without an active program: 404.') },
    )
    .get(
      '/customer/:slug/locations',
      async ({ tenant, auth, params }) => {
        sameMerchant(tenant, params.slug);
        return { data: await customerLocations(tenant.db, (await me(tenant, auth)).id) };
      },
      { params: S.SlugParams, response: { 200: S.LocationsResponse }, detail: doc('Customer\'s locations', 'The merchant\'s locations, those the customer ordered at first, with the count of their orders.') },
    );
}

/** `auth.optional` for the order routes: a customer token binds its merchant (which must be `slug`'s); without one, `slug` names it. */
export async function optionalCustomer(deps: ApiDeps, headers: Record<string, string | undefined>, slug: string): Promise<{ t: MerchantTenant; customerId: string | null }> {
  if (bearerToken(headers.authorization)) {
    const s = await resolveSecured(deps, { types: ['customer'] }, { headers, query: {} });
    sameMerchant(s.tenant, slug);
    const c = await me(s.tenant, s.auth);
    return { t: { merchant: s.tenant.merchant, db: s.tenant.db }, customerId: c.id };
  }
  return { t: await merchantBySlug(deps.db, slug), customerId: null };
}


/** The caller of a customer order route, worked out in its transform (before the body and the params are validated). */
const orderCallers = new WeakMap<Request, Awaited<ReturnType<typeof optionalCustomer>>>();
type OrderCallerContext = { request: Request; server: unknown; headers: Record<string, string | undefined>; params: unknown };

function customerOrderRoutes(deps: ApiDeps) {
  // Spec 1: `auth.optional` and the throttle run first, so a refused token is 401 (another merchant's
  // customer 404) whatever the body, and a refused body counts against the throttle like any request.
  const gate = (rule: ThrottleRule) => async (ctx: OrderCallerContext) => {
    await throttle(deps.redis, deps.env, [[rule, deps.throttleAddress(ctx.request, ctx.server as never)]]);
    orderCallers.set(ctx.request, await optionalCustomer(deps, ctx.headers, (ctx.params as { slug?: string } | undefined)?.slug ?? ''));
  };
  const callerOf = (ctx: OrderCallerContext & { params: { slug: string } }) => orderCallers.get(ctx.request) ?? optionalCustomer(deps, ctx.headers, ctx.params.slug);
  return new Elysia({ name: 'customer-orders' })
    .post(
      '/customer/:slug/order-history',
      async (ctx) => {
        const { body } = ctx;
        const { t, customerId } = await callerOf(ctx);
        const page = body?.page ?? 1;
        const perPage = body?.per_page ?? 25;
        if (customerId) return orderSummaries(t.db, { customerId }, page, perPage);
        // A guest sees only the orders it names (ids are unguessable UUIDs) and never a customer's.
        const ids = (body?.order_ids ?? []).filter(isUuid);
        return orderSummaries(t.db, { ids: await guestOrderIds(t.db, ids) }, page, perPage);
      },
      {
        params: S.SlugParams,
        transform: [gate(THROTTLES.orderHistory)],
        // Every field is optional: no body at all is the first page, as `{}` is.
        body: t.Optional(S.OrderHistoryBody),
        response: { 200: S.OrderPage },
        detail: doc(
          'Order history',
          '`auth.optional`. With a customer token: the customer\'s orders, newest first. Without: the guest orders listed in `order_ids` (orders of a customer account are left out). Throttle: 5 per minute per client address.',
        ),
      },
    )
    .get(
      '/customer/:slug/order-detail/:orderId',
      async (ctx) => {
        const { params } = ctx;
        const { t, customerId } = await callerOf(ctx);
        if (!isUuid(params.orderId)) throw errors.notFound('order');
        const d = await orderDetail(t.db, params.orderId, customerId ?? undefined);
        // A guest may open a guest order by its id, never a customer's order.
        if (!d || (!customerId && d.customer_id)) throw errors.notFound('order');
        return { data: d };
      },
      {
        params: S.OrderParams,
        transform: [gate(THROTTLES.orderDetail)],
        response: { 200: S.OrderDetailResponse },
        detail: doc('Order detail', '`auth.optional`. With a customer token: one of the customer\'s orders; without: a guest order by its id. Otherwise 404. Throttle: 10 per minute per client address.'),
      },
    );
}
