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
