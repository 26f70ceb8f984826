import { Elysia } from 'elysia';
import * as contents from '@pos/core/catalog/contents';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { catalogScope, doc } from '../catalog/scope.ts';
import * as S from './contents.schemas.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';

/**
 * Spec 1 "Content, inventories, tax rates" (content part), under `/back-office/contents`. Uploads are
 * multipart (`file`); size and type are checked on the bytes (422 on `file`); the bytes go to the
 * object store.
 */
export function contentRoutes(deps: ApiDeps) {
  const tags = ['Catalog: content'];
  return new Elysia({ name: 'catalog-contents', prefix: '/back-office/contents' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/datatable', ({ tenant, query }) => contents.listContents(tenant.db, query), {
      query: S.ContentDatatableQuery,
      response: { 200: S.ContentDatatable },
      ...doc(tags, 'Content data table', null, 'search (name), sort (name, size_bytes, created_at), filter content_type.'),
    })
    .get('', async ({ tenant }) => ({ data: await contents.allContents(tenant.db) }), {
      response: { 200: S.ContentList },
      ...doc(tags, 'Content items (newest 500)', null),
    })
    .post(
      '',
      async (ctx) => {
        // The store's disk is shared by every merchant: uploads per merchant are bounded.
        await throttle(deps.redis, deps.env, [[THROTTLES.contentUploadMerchant, ctx.tenant.merchant.id]]);
        ctx.set.status = 201;
        const scope = { ...(await catalogScope(deps, ctx)), tenantDatabase: ctx.tenant.merchant.tenant_database };
        return { data: await contents.uploadContent(scope, deps.objects, ctx.body, deps.contentMaxBytes) };
      },
      {
        body: S.UploadBody,
        response: { 201: S.ContentResponse },
        transform: [permission('CREATE_CONTENT')],
        ...doc(tags, 'Upload an image', 'CREATE_CONTENT', `multipart/form-data with \`file\` (JPEG, PNG, GIF or WebP by its bytes; at most CONTENT_MAX_BYTES, 5 MiB by default), optional \`name\`, \`alt_text\`. Throttle: 200 uploads an hour per merchant (429).`),
      },
    )
    .get(
      '/:id',
      async ({ tenant, params, query }) => {
        if (!query.download) return { data: await contents.getContent(tenant.db, params.id) };
        const file = await contents.readContent(tenant.db, deps.objects, params.id);
        // The bytes, not the JSON record: a Response is sent as it is (the schema documents the record).
        const bytes = new Response(file.bytes, { headers: { 'content-type': file.contentType, 'x-content-type-options': 'nosniff', 'content-disposition': 'inline' } });
        return bytes as unknown as { data: contents.ContentView };
      },
      {
        params: S.IdParams,
        query: S.ContentShowQuery,
        response: { 200: S.ContentResponse },
        transform: [permission('VIEW_CONTENT')],
        ...doc(tags, 'Show a content item (or its bytes with download=true)', 'VIEW_CONTENT'),
      },
    )
    .post('/:id', async (ctx) => ({ data: await contents.updateContent(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateBody,
      response: { 200: S.ContentResponse },
      transform: [permission('VIEW_CONTENT')],
      ...doc(tags, 'Update a content item (name, alt text)', 'VIEW_CONTENT', 'The spec gates this update with VIEW_CONTENT.'),
    })
    .delete('', async (ctx) => ({ status: 'success' as const, deleted: await contents.deleteContents(await catalogScope(deps, ctx), deps.objects, ctx.body.ids) }), {
      body: S.DeleteBody,
      response: { 200: S.DeleteResponse },
      transform: [permission('DELETE_CONTENT')],
      ...doc(tags, 'Delete content items', 'DELETE_CONTENT', 'Body `{ids}`; an unknown or foreign id is a 422 on `ids.N` and nothing is deleted. Items showing one lose their image.'),
    });
}
