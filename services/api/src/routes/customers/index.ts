import { Elysia, type AnyElysia } from 'elysia';
import { errors } from '@pos/kernel';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import { countryOptions } from '@pos/core/options/countries';
import {
  addCustomerNote,
  createCustomer,
  customerDatatable,
  customerGiftCards,
  customerRewardRedemptions,
  customerTimeline,
  eraseCustomer,
  readCustomer,
  setMarketingConsent,
  updateCustomer,
} from '@pos/core/customers/customer-admin';
import { addAddress, listAddresses, orderDetail, orderSummaries, setDefaultAddress } from '@pos/core/customers/customer-views';
import { exportCustomers } from '@pos/core/customers/export-customers';
import { getCustomer } from '@pos/core/customers/customers';
import { logActivity } from '@pos/core/activity/log-activity';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { grantedLocationIds } from '@pos/core/devices/device-records';
import type { Access } from '@pos/core/auth/access';
import * as S from './customers.schemas.ts';
import { isUuid } from '@pos/domain/ids';

/** The caller's granted location ids, or undefined for every location. */
const grantedOrAll = (a: Access) => {
  const g = grantedLocationIds(a);
  return g === 'all' ? undefined : g;
};

const doc = (summary: string, perm: string, description = '') => ({
  detail: { tags: ['Customers'], security: [{ bearer: [] }], summary, description: `Permission: ${perm}.${description ? ` ${description}` : ''}` },
});
/** A path id that is not a UUID is an unknown record (404), never a database error. */
function uuidOr404(id: string, model: string): string {
  if (!isUuid(id)) throw errors.notFound(model);
  return id;
}
const COUNTRIES = new Set(countryOptions({}).map((c) => c.value));

/**
 * Customers in the back office (spec 1 "Customers (back office)"), each route with its permission.
 * Reads of one customer and exports are written to the activity log (privacy); deleting a customer
 * erases their personal data and keeps their orders anonymised.
 */
export function customerAdminRoutes(deps: ApiDeps): AnyElysia {
  return customerAdminRoutesTyped(deps);
}

function customerAdminRoutesTyped(deps: ApiDeps) {
  const now = () => deps.clock.now();
  const actor = (auth: BackofficePrincipal) => ({ userId: auth.userId });
  return new Elysia({ name: 'customers-admin', prefix: '/back-office/customers' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/datatable', ({ tenant, query }) => customerDatatable(tenant.db, query), {
      query: S.DatatableQuery,
      response: { 200: S.Datatable },
      transform: permission('VIEW_CUSTOMERS'),
      ...doc('Customers (data table)', 'VIEW_CUSTOMERS', 'Newest first, with the points balance; `search` matches name, e-mail or phone.'),
    })
    .get(
      '/export',
      async ({ tenant, auth, query }) => {
        const f = await exportCustomers(tenant.db, actor(auth), query.format ?? 'csv', now());
        return new Response(f.body, { headers: { 'content-type': f.contentType, 'content-disposition': `attachment; filename="${f.filename}"` } });
      },
      {
        query: S.ExportQuery,
        response: { 200: S.FileResponse },
        transform: permission('EXPORT_CUSTOMERS'),
        ...doc('Export customers', 'EXPORT_CUSTOMERS', '`format` `csv` (default, UTF-8 with a byte-order mark) or `xlsx`. Every export is recorded in the activity log.'),
      },
    )
    .post('', async ({ tenant, auth, body }) => ({ data: await createCustomer(tenant.db, actor(auth), body, now()) }), {
      query: S.VendorQuery,
      body: S.CustomerBody,
      response: { 200: S.CustomerResponse },
      transform: permission('CREATE_CUSTOMERS'),
      ...doc('Create a customer', 'CREATE_CUSTOMERS', 'At least a name, an e-mail or a phone; a contact another customer holds is a 422 on that field.'),
    })
    .get(
      '/order-detail/:id',
      async ({ tenant, params, access }) => {
        const d = await orderDetail(tenant.db, uuidOr404(params.id, 'transaction'));
        // VIEW_TRANSACTIONS is location-scoped: an order of a location outside the grant is a 404.
        const a = await access();
        if (!d || (!a.allLocations && !a.locationIds.has(d.location.id))) throw errors.notFound('transaction');
        return { data: d };
      },
      { query: S.VendorQuery, params: S.IdParams, response: { 200: S.OrderDetailResponse }, transform: permission('VIEW_TRANSACTIONS'), ...doc('Customer order detail', 'VIEW_TRANSACTIONS', 'One order with its lines; an order of a location outside the user\'s grant is a 404.') },
    )
    .get('/:id', async ({ tenant, auth, params }) => ({ data: await readCustomer(tenant.db, actor(auth), uuidOr404(params.id, 'customer')) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      response: { 200: S.DetailResponse },
      transform: permission('VIEW_CUSTOMERS'),
      ...doc('Customer detail', 'VIEW_CUSTOMERS', 'With points, addresses and notes. Each read is recorded in the activity log.'),
    })
    .put('/:id', async ({ tenant, auth, params, body }) => ({ data: await updateCustomer(tenant.db, actor(auth), uuidOr404(params.id, 'customer'), body, now()) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      body: S.CustomerBody,
      response: { 200: S.CustomerResponse },
      transform: permission('EDIT_CUSTOMERS'),
      ...doc('Update a customer', 'EDIT_CUSTOMERS', 'The fields given.'),
    })
    .delete(
      '/:id',
      async ({ tenant, auth, params }) => {
        await eraseCustomer(tenant.db, actor(auth), uuidOr404(params.id, 'customer'));
        return { status: 'success' as const };
      },
      {
        query: S.VendorQuery,
        params: S.IdParams,
        response: { 200: S.Success },
        transform: permission('DELETE_CUSTOMERS'),
        ...doc('Delete a customer', 'DELETE_CUSTOMERS', 'Erases the personal data (the customer, addresses, notes, timeline, points, tokens, login codes); orders stay, anonymised (no customer link, no name).'),
      },
    )
    .get(
      '/:id/orders',
      async ({ tenant, params, query, access }) => {
        const c = await getCustomer(tenant.db, uuidOr404(params.id, 'customer'));
        // Location-scoped like the transaction lists: orders of locations outside the grant are left out.
        return orderSummaries(tenant.db, { customerId: c.id, locationIds: grantedOrAll(await access()) }, query.page ?? 1, query.per_page ?? 25);
      },
      { query: S.PagedOrdersQuery, params: S.IdParams, response: { 200: S.OrderPage }, transform: permission('VIEW_CUSTOMERS'), ...doc('Customer orders', 'VIEW_CUSTOMERS', 'Newest first; only orders of the locations granted to the caller (and their count in `total`).') },
    )
    .get('/:id/gift-cards', async ({ tenant, params }) => ({ data: await customerGiftCards(tenant.db, uuidOr404(params.id, 'customer')) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      response: { 200: S.GiftCards },
      transform: permission('VIEW_CUSTOMERS'),
      ...doc('Customer gift cards', 'VIEW_CUSTOMERS', 'Last four characters of each code only.'),
    })
    // Location-scoped as the orders list: redemptions and events of orders outside the grant are left out.
    .get('/:id/reward-redemptions', async ({ tenant, params, access }) => ({ data: await customerRewardRedemptions(tenant.db, uuidOr404(params.id, 'customer'), grantedOrAll(await access())) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      response: { 200: S.Redemptions },
      transform: permission('VIEW_CUSTOMERS'),
      ...doc('Customer reward redemptions', 'VIEW_CUSTOMERS'),
    })
    .get('/:id/timelines', async ({ tenant, params, access }) => ({ data: await customerTimeline(tenant.db, uuidOr404(params.id, 'customer'), grantedOrAll(await access())) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      response: { 200: S.Timeline },
      transform: permission('VIEW_CUSTOMERS'),
      ...doc('Customer timeline', 'VIEW_CUSTOMERS', 'Newest first.'),
    })
    .post('/:id/notes', async ({ tenant, auth, params, body }) => ({ data: await addCustomerNote(tenant.db, actor(auth), uuidOr404(params.id, 'customer'), body.note, now()) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      body: S.NoteBody,
      response: { 200: S.NoteResponse },
      transform: permission('EDIT_CUSTOMERS'),
      ...doc('Add a note', 'EDIT_CUSTOMERS'),
    })
    .post('/:id/marketing', async ({ tenant, auth, params, body }) => ({ data: await setMarketingConsent(tenant.db, actor(auth), uuidOr404(params.id, 'customer'), body.marketing_consent, now()) }), {
      query: S.VendorQuery,
      params: S.IdParams,
      body: S.MarketingBody,
      response: { 200: S.CustomerResponse },
      transform: permission('EDIT_CUSTOMERS'),
      ...doc('Set marketing consent', 'EDIT_CUSTOMERS', 'Written to the timeline.'),
    })
    .post(
      '/:id/addresses',
      async ({ tenant, auth, params, body }) => {
        const c = await getCustomer(tenant.db, uuidOr404(params.id, 'customer'));
        if (!COUNTRIES.has(body.country.toUpperCase())) throw errors.field('country', 'The selected country is invalid.');
        const a = await addAddress(tenant.db, c.id, body, now());
        await logActivity(tenant.db, { userId: auth.userId, action: 'updated', subject: 'customer', subjectId: c.id, properties: { fields: ['addresses'] } });
        return { data: a };
      },
      { query: S.VendorQuery, params: S.IdParams, body: S.AddressBody, response: { 200: S.AddressResponse }, transform: permission('EDIT_CUSTOMERS'), ...doc('Add an address', 'EDIT_CUSTOMERS', 'The first one, or one with `is_default`, becomes the default.') },
    )
    .post(
      '/:id/addresses/:addressId',
      async ({ tenant, auth, params }) => {
        const c = await getCustomer(tenant.db, uuidOr404(params.id, 'customer'));
        if (!isUuid(params.addressId) || !(await setDefaultAddress(tenant.db, c.id, params.addressId))) throw errors.notFound('address');
        await logActivity(tenant.db, { userId: auth.userId, action: 'updated', subject: 'customer', subjectId: c.id, properties: { fields: ['default_address'] } });
        return { data: await listAddresses(tenant.db, c.id) };
      },
      { query: S.VendorQuery, params: S.AddressParams, response: { 200: S.AddressList }, transform: permission('EDIT_CUSTOMERS'), ...doc('Set the default address', 'EDIT_CUSTOMERS', 'Answers the addresses, the default first.') },
    );
}
