import { Elysia } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import type { BackofficeScope } from '@pos/core/devices/device-records';
import { closeTable, createTableSection, deleteTableSection, getTableSection, listTableSections, updateTableSection } from '@pos/core/table-qr/table-sections';
import { bindOrder, resolveQrLocation, scanTable, sessionDetails } from '@pos/core/table-qr/table-sessions';
import { DEFAULT_PUBLIC_BASE_URL, downloadQrCodes, qrDownloadOptions } from '@pos/core/table-qr/qr-files';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { authenticateOptional } from '../../middleware/authenticate.ts';
import { secured } from '../../plugins/secured.ts';
import { locationOwner } from '../../plugins/guards.ts';
import * as S from './table-qr.schemas.ts';

const PERMS = 'No permission of its own (spec 1 "-"): the location must be in the caller\'s grant (403 otherwise).';
const doc = (tag: string, summary: string, description?: string, secured = true) => ({
  detail: { tags: [tag], summary, ...(description ? { description } : {}), ...(secured ? { security: [{ bearer: [] }] } : {}) },
});

async function scopeOf(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access> }): Promise<BackofficeScope> {
  return { db: deps.db, tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, userId: ctx.auth.userId, access: await ctx.access(), now: deps.clock.now() };
}

const baseUrlOf = (deps: ApiDeps) => deps.config.TABLE_QR_PUBLIC_BASE_URL ?? DEFAULT_PUBLIC_BASE_URL;

/** `/back-office/table-sections` (spec 1; back-office paths are under `/back-office`): CRUD of a location's table sections. auth, type:backoffice, admin-vendor-override. */
export function tableSectionRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'table-sections', prefix: '/back-office/table-sections' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await createTableSection(await scopeOf(deps, ctx), ctx.body) };
      },
      { query: S.VendorQuery, body: S.CreateTableSectionBody, response: { 201: S.TableSectionResponse }, ...doc('Table sections', 'Create a table section', `Tables are numbered 1..\`tables\`. ${PERMS}`) },
    )
    .get('/location/:locationId', async (ctx) => ({ data: await listTableSections(await scopeOf(deps, ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.TableSectionList },
      transform: [locationOwner()],
      ...doc('Table sections', 'List the table sections of a location', `By name, each with its open session count. ${PERMS}`),
    })
    .get('/:id', async (ctx) => ({ data: await getTableSection(await scopeOf(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      query: S.VendorQuery,
      response: { 200: S.TableSectionResponse },
      ...doc('Table sections', 'Show a table section', PERMS),
    })
    .put('/:id', async (ctx) => ({ data: await updateTableSection(await scopeOf(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      query: S.VendorQuery,
      body: S.UpdateTableSectionBody,
      response: { 200: S.TableSectionResponse },
      ...doc('Table sections', 'Update a table section', `Name and number of tables; fewer tables than an open session's table number is a 422. ${PERMS}`),
    })
    .post('/:id/tables/:tableNumber/close', async (ctx) => ({ data: await closeTable(await scopeOf(deps, ctx), ctx.params.id, ctx.params.tableNumber) }), {
      params: S.TableParams,
      query: S.VendorQuery,
      response: { 200: S.TableSectionResponse },
      ...doc(
        'Table sections',
        'Close a table\'s session',
        `The party at the table left: its open QR session is closed, so the next scan opens a new one (a session nobody ordered at for 2 hours closes by itself). No open session is a no-op; a table number outside 1..\`tables\` is 404. Answers the section. ${PERMS}`,
      ),
    })
    .delete(
      '/:id',
      async (ctx) => {
        await deleteTableSection(await scopeOf(deps, ctx), ctx.params.id);
        return { status: 'success' as const };
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.Success }, ...doc('Table sections', 'Delete a table section', `Its sessions go with it; bound orders stay, unbound. Refused while a party is at one of its tables (an open session used in the last 2 hours): 409 \`section_in_use\`; close the table first. ${PERMS}`) },
    );
}

/** `/back-office/qr-ordering/{locationId}` QR code downloads (spec 1, beside its GET/PUT). auth, type:backoffice, admin-vendor-override, location-owner. */
export function qrDownloadRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'qr-ordering-downloads', prefix: '/back-office/qr-ordering' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/:locationId/qr-download-options', async (ctx) => ({ data: await qrDownloadOptions(await scopeOf(deps, ctx), ctx.params.locationId, baseUrlOf(deps)) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.DownloadOptions },
      transform: [locationOwner()],
      ...doc('Table QR ordering', 'QR code download options', `Formats, sizes, and the location's sections with the URL of table 1. ${PERMS}`),
    })
    .post(
      '/:locationId/download-multiple',
      async (ctx) => {
        const file = await downloadQrCodes(await scopeOf(deps, ctx), ctx.params.locationId, ctx.body, baseUrlOf(deps));
        return new Response(file.bytes, { headers: { 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.filename}"` } });
      },
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.DownloadBody,
        response: { 200: S.QrFile },
        transform: [locationOwner()],
        ...doc(
          'Table QR ordering',
          'Download table QR codes',
          'Each code points at `{TABLE_QR_PUBLIC_BASE_URL}/table-qr-ordering/{locationId}/{tableSectionId}/{tableNumber}`. `png`: one table; `pdf`: a page per table (all tables of the section when `tables` is absent). ' + PERMS,
        ),
      },
    );
}

/** The guest side (spec 1): scan, session details, bind-order. Optional auth: a token, when sent, must be valid. */
export function tableQrOrderingRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'table-qr-ordering', prefix: '/table-qr-ordering' })
    .onTransform(async ({ headers }) => {
      await authenticateOptional(deps, headers.authorization);
    })
    .get(
      '/:locationId/session/:sessionId',
      async ({ params }) => ({ data: await sessionDetails(await resolveQrLocation(deps.db, params.locationId), params.locationId, params.sessionId, deps.clock.now()) }),
      { params: S.SessionParams, response: { 200: S.SessionResponse }, ...doc('Table QR ordering', 'Table session details', 'The session with its bound paid orders and their total.', false) },
    )
    .post(
      '/:locationId/session/:sessionId/bind-order',
      async ({ params, body }) => ({ data: await bindOrder(await resolveQrLocation(deps.db, params.locationId), params.locationId, params.sessionId, body.transaction_id, deps.clock.now()) }),
      {
        params: S.SessionParams,
        body: S.BindOrderBody,
        response: { 200: S.SessionResponse },
        ...doc(
          'Table QR ordering',
          'Bind a paid order to the table session',
          'Only a paid (Complete) order of the same location (422 `order_not_paid`, `other_location`), not bound to another session (409 `other_session`); binding again is a no-op. Answers the session.',
          false,
        ),
      },
    )
    .get(
      '/:locationId/:tableSectionId/:tableNumber',
      async ({ params }) => {
        const r = await scanTable(await resolveQrLocation(deps.db, params.locationId), params.locationId, params.tableSectionId, /^[0-9]{1,6}$/.test(params.tableNumber) ? Number(params.tableNumber) : NaN, deps.clock.now());
        return { data: r.session, opened: r.opened };
      },
      { params: S.ScanParams, response: { 200: S.ScanResponse }, ...doc('Table QR ordering', 'Scan a table QR code', 'Opens the table\'s session or joins the open one (`opened` says which); concurrent scans get one session.', false) },
    );
}
