import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { sniffImage, type ObjectStore } from '../storage/object-store.ts';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { refreshPublished } from './published/published-catalog.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';

/**
 * Content items (spec 1 "Content, inventories, tax rates"): uploaded images whose bytes live in the
 * object store; the row holds the metadata. The type is what the bytes are (magic numbers), never the
 * declared type; the size is bounded.
 */
export const DEFAULT_CONTENT_MAX_BYTES = 5 * 1024 * 1024;

export interface ContentView {
  id: string;
  name: string;
  alt_text: string | null;
  content_type: string;
  size_bytes: number;
  /** Where the bytes are served (`GET /back-office/contents/{id}?download=true`). */
  url: string;
  created_at: string;
  updated_at: string;
}

type Row = { id: string; name: string; alt_text: string | null; content_type: string; size_bytes: number; created_at: Date; updated_at: Date };
const view = (r: Row): ContentView => ({
  id: r.id,
  name: r.name,
  alt_text: r.alt_text,
  content_type: r.content_type,
  size_bytes: r.size_bytes,
  url: `/api/back-office/contents/${r.id}?download=true`,
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

const find = (tdb: TenantDb, id: string) => findOr404('content', id, (x) => tdb.selectFrom('contents').selectAll().where('id', '=', x).executeTakeFirst());

export const getContent = async (tdb: TenantDb, id: string) => view(await find(tdb, id));

/** The bytes of a content item, with its type. */
export async function readContent(tdb: TenantDb, store: ObjectStore, id: string): Promise<{ bytes: Uint8Array; contentType: string; name: string }> {
  const row = await find(tdb, id);
  const bytes = await store.get(row.storage_key);
  if (!bytes) throw errors.notFound('content');
  return { bytes, contentType: row.content_type, name: row.name };
}

/** `GET /contents/datatable`: search on name; sort name, size_bytes, created_at; filter content_type. */
export function listContents(tdb: TenantDb, q: DatatableQuery & { sort?: string; content_type?: string }): Promise<Datatable<ContentView>> {
  let base = tdb.selectFrom('contents');
  if (q.content_type) base = base.where('content_type', '=', q.content_type);
  return runDatatable(base, q, {
    searchColumns: ['name'],
    sortable: ['name', 'size_bytes', 'created_at'],
    defaultSort: { column: 'created_at', direction: 'desc' },
    select: (qb) => qb.selectAll(),
    map: view,
  });
}

/** `GET /contents`: the newest 500 content items. */
export async function allContents(tdb: TenantDb): Promise<ContentView[]> {
  return (await tdb.selectFrom('contents').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500).execute()).map(view);
}

export interface UploadInput {
  file: Blob & { name?: string };
  name?: string;
  alt_text?: string | null;
}

/**
 * `POST /contents`: checks size and type (422 on `file`), stores the bytes, then the row; the bytes
 * are removed again when the row cannot be written, so nothing is half-written.
 */
export async function uploadContent(scope: CatalogScope & { tenantDatabase: string }, store: ObjectStore, input: UploadInput, maxBytes = DEFAULT_CONTENT_MAX_BYTES): Promise<ContentView> {
  if (input.file.size === 0) throw errors.field('file', 'The file may not be empty.');
  if (input.file.size > maxBytes) throw errors.field('file', `The file may not be greater than ${Math.floor(maxBytes / 1024)} kilobytes.`);
  const bytes = new Uint8Array(await input.file.arrayBuffer());
  const type = sniffImage(bytes);
  if (!type) throw errors.field('file', 'The file must be an image: JPEG, PNG, GIF or WebP.');
  const id = newId();
  const key = `${scope.tenantDatabase}/contents/${id}`;
  // A store that cannot be written (a full disk, a directory the process may not write) is an outage to
  // report as one (503), not an unexpected error.
  await store.put(key, bytes, type).catch((e: unknown) => {
    throw errors.unavailable('The file store is not available. Try again later.', { reason: 'store_unavailable', cause: e });
  });
  try {
    const row = await catalogTx(scope, (tx) =>
      tx
        .insertInto('contents')
        .values({ id, name: (input.name ?? input.file.name ?? 'upload').trim().slice(0, 255) || 'upload', alt_text: input.alt_text ?? null, content_type: type, size_bytes: bytes.length, storage_key: key })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
    return view(row);
  } catch (e) {
    await store.delete(key).catch(() => {});
    throw e;
  }
}

/** `POST /contents/{id}`: rename or change the alt text. */
export async function updateContent(scope: CatalogScope, id: string, input: { name?: string; alt_text?: string | null }): Promise<ContentView> {
  return catalogTx(scope, async (tx) => {
    // Locked: a deletion at the same moment either waits for the rename or is seen, and the rename is
    // the 404 a later request gets (it was a 500: the update found no row).
    const c = await findOr404('content', id, (x) => tx.selectFrom('contents').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());
    const row = await tx
      .updateTable('contents')
      .set({ ...(input.name !== undefined ? { name: input.name.trim() } : {}), ...(input.alt_text !== undefined ? { alt_text: input.alt_text } : {}), updated_at: scope.now })
      .where('id', '=', c.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return view(row);
  });
}

/** `DELETE /contents` (several): every id must be the merchant's (422 `ids.N`); items showing one lose their image; the bytes go after the commit. */
export async function deleteContents(scope: CatalogScope, store: ObjectStore, ids: readonly string[]): Promise<number> {
  requireDistinct(ids, 'ids');
  const [keys, changed] = await catalogTx(scope, async (tx) => {
    // Locked for the delete: a second request for the same ids waits and answers as for an unknown id,
    // and an item being given one of these images commits first, so it is found below and recompiled.
    await requireIds(tx, 'contents', ids, 'ids', 'content', false, 'update');
    const lower = ids.map((x) => x.toLowerCase());
    const items = await tx.selectFrom('items').select('id').where('image_content_id', 'in', lower).execute();
    const rows = await tx.deleteFrom('contents').where('id', 'in', lower).returning('storage_key').execute();
    return [rows.map((r) => r.storage_key), await refreshPublished(tx, items.map((i) => i.id))] as const;
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  for (const k of keys) await store.delete(k).catch(() => {});
  return keys.length;
}
