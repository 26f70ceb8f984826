/** Data-table answers of back-office list routes: one page of rows plus the total count. */
export interface DatatableQuery {
  page?: number;
  per_page?: number;
  search?: string;
}

export interface Datatable<T> {
  data: T[];
  total: number;
  page: number;
  per_page: number;
}

export const MAX_PER_PAGE = 100;

/** Normalises paging: page >= 1, per_page 1..100 (default 25). */
export function paging(q: DatatableQuery): { page: number; perPage: number; offset: number } {
  const page = Math.max(1, Math.floor(q.page ?? 1));
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.floor(q.per_page ?? 25)));
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Escapes LIKE wildcards in a search term. */
export function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Sorting of a data table: `sort` is a column name, `-name` for descending; only listed columns. */
export interface DatatableSort<C extends string> {
  column: C;
  direction: 'asc' | 'desc';
}

/** Parses `sort` against the allowed columns; an unknown column falls back to the default. */
export function parseSort<C extends string>(sort: string | undefined, allowed: readonly C[], fallback: DatatableSort<C>): DatatableSort<C> {
  if (!sort) return fallback;
  const desc = sort.startsWith('-');
  const column = (desc ? sort.slice(1) : sort) as C;
  return allowed.includes(column) ? { column, direction: desc ? 'desc' : 'asc' } : fallback;
}

/**
 * The one data-table runner of the catalog lists (`…/datatable`): `search` (case-insensitive, over
 * `searchColumns`), equality `filters` already applied by the caller, `sort` (see `parseSort`, ties
 * broken by `id`), `page` and `per_page` (see `paging`). The query builder is any Kysely select whose
 * table has the searched, sorted and `id` columns; `map` shapes each row.
 */
export async function runDatatable<R, T>(
  base: any,
  q: DatatableQuery & { sort?: string },
  opts: { searchColumns: readonly string[]; sortable: readonly string[]; defaultSort: DatatableSort<string>; select: (qb: any) => any; map: (row: R) => T },
): Promise<Datatable<T>> {
  const { page, perPage, offset } = paging(q);
  let qb = base;
  const search = q.search?.trim();
  if (search && opts.searchColumns.length > 0) {
    const p = likePattern(search);
    qb = qb.where((eb: any) => eb.or(opts.searchColumns.map((c) => eb(c, 'ilike', p))));
  }
  const sort = parseSort(q.sort, opts.sortable, opts.defaultSort);
  const [count, rows] = await Promise.all([
    qb.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as Promise<{ n: number | string }>,
    opts.select(qb).orderBy(sort.column, sort.direction).orderBy('id', 'asc').limit(perPage).offset(offset).execute() as Promise<R[]>,
  ]);
  return { data: rows.map(opts.map), total: Number(count.n), page, per_page: perPage };
}
