import { CompiledQuery, sql, type Compilable, type Kysely } from 'kysely';

/**
 * Runs `query` as a server-side cursor and hands its rows to `onPage`, `pageRows` at a time: a long
 * read (a year of a busy merchant's sales) is planned and executed once, as one query would be, but the
 * process holds one page of rows at a time and its event loop runs between pages. One transaction (a
 * cursor lives in one) on one pooled connection for the whole read; several queries may share it
 * (`queries`, read one after the other). `cursor_tuple_fraction` 1: the plan is the one for reading
 * every row (a cursor is otherwise planned for its first tenth, which picks nested loops over hash joins).
 */
/** A query and what to do with each page of its rows (`pagedQuery` keeps the two typed together). */
export interface PagedQuery {
  readonly query: Compilable<unknown>;
  readonly onPage: (rows: never[]) => void;
}

export function pagedQuery<R>(query: Compilable<R>, onPage: (rows: R[]) => void): PagedQuery {
  return { query, onPage: onPage as (rows: never[]) => void };
}

export async function readInPages(db: Kysely<any>, pageRows: number, queries: readonly PagedQuery[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local cursor_tuple_fraction = 1`.execute(trx);
    for (const [i, { query, onPage }] of queries.entries()) {
      const compiled = query.compile();
      const cursor = `page_cursor_${i}`;
      await trx.executeQuery(CompiledQuery.raw(`declare ${cursor} no scroll cursor for ${compiled.sql}`, [...compiled.parameters]));
      for (;;) {
        const page = await trx.executeQuery<never>(CompiledQuery.raw(`fetch ${Math.trunc(pageRows)} from ${cursor}`));
        if (page.rows.length > 0) onPage(page.rows);
        if (page.rows.length < pageRows) break;
      }
      await trx.executeQuery(CompiledQuery.raw(`close ${cursor}`));
    }
  });
}
