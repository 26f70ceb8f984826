import { sql, type Selectable } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';
import { isUniqueViolation } from '@pos/db';
import { lockDefaults, switchDefault } from './default-switch.ts';
import { isCountryCode } from '../options/countries.ts';
import { isLanguageCode } from '../options/languages.ts';

/**
 * The merchant's languages (spec 1 "Settings", §3 Language transitions). The first language is the
 * default and published; the default is always published, so it can be neither unpublished nor
 * deleted, and only a published language becomes the default. A language's translations go with it.
 */

export const DUPLICATE_LANGUAGE = 'The language has already been added.';
export const DEFAULT_MUST_BE_PUBLISHED = 'Only a published language can be the default language.';
export const DEFAULT_STAYS_PUBLISHED = 'The default language cannot be unpublished.';
export const DEFAULT_NOT_DELETABLE = 'The default language cannot be deleted.';

/** What a translation covers: every name and description of the catalog a guest reads. */
export const TRANSLATABLE_FIELDS = [
  { subject_type: 'item', table: 'items', field: 'name' },
  { subject_type: 'item', table: 'items', field: 'description' },
  { subject_type: 'category', table: 'categories', field: 'name' },
  { subject_type: 'category', table: 'categories', field: 'description' },
] as const;

type Row = Selectable<TenantTables['languages']>;

export interface LanguageView {
  id: string;
  code: string;
  name: string;
  is_default: boolean;
  status: 'published' | 'unpublished';
  created_at: string;
  updated_at: string;
}

const view = (r: Row): LanguageView => ({ id: r.id, code: r.code, name: r.name, is_default: r.is_default, status: r.status, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString() });

export async function findLanguage(db: TenantDb | TenantTx, id: string, lock = false): Promise<Row> {
  let q = db.selectFrom('languages').selectAll().where('id', '=', isUuid(id) ? id : '00000000-0000-0000-0000-000000000000');
  if (lock) q = q.forUpdate();
  const row = isUuid(id) ? await q.executeTakeFirst() : undefined;
  if (!row) throw errors.notFound('language');
  return row;
}

export async function listLanguages(tdb: TenantDb): Promise<LanguageView[]> {
  return (await tdb.selectFrom('languages').selectAll().orderBy('is_default', 'desc').orderBy('name').orderBy('id').execute()).map(view);
}

/** Codes as `en`, `nl-BE`: lower-case language, optional upper-case region. */
export function normaliseCode(code: string): string {
  const [lang, region] = code.trim().split('-');
  return region ? `${lang!.toLowerCase()}-${region.toUpperCase()}` : lang!.toLowerCase();
}

export const UNKNOWN_LANGUAGE_CODE = 'The code field must be a language code such as en or nl-BE.';

/** A code of `GET /lang-options` (ISO 639-1), optionally with a region of `GET /country-options`. */
export function isKnownLanguageCode(code: string): boolean {
  const [lang, region, ...rest] = code.trim().split('-');
  return rest.length === 0 && isLanguageCode(lang!) && (region === undefined || isCountryCode(region));
}

export async function createLanguage(tdb: TenantDb, userId: string, input: { code: string; name: string }): Promise<LanguageView> {
  if (!isKnownLanguageCode(input.code)) throw errors.field('code', UNKNOWN_LANGUAGE_CODE);
  // Two first creations at once: the partial unique index keeps one default; the loser runs again as a later language.
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTenantTx(tdb, async (tx) => {
        const first = !(await tx.selectFrom('languages').select('id').limit(1).executeTakeFirst());
        const row = await tx
          .insertInto('languages')
          .values({ id: Bun.randomUUIDv7(), code: normaliseCode(input.code), name: input.name.trim(), is_default: first, status: first ? 'published' : 'unpublished' })
          .returningAll()
          .executeTakeFirstOrThrow();
        await logActivity(tx, { userId, action: 'created', subject: 'language', subjectId: row.id, properties: { code: row.code } });
        return view(row);
      });
    } catch (e) {
      if (attempt === 0 && isUniqueViolation(e, 'languages_one_default')) continue;
      if (isUniqueViolation(e)) throw errors.conflict(DUPLICATE_LANGUAGE);
      throw e;
    }
  }
}

async function transition(
  tdb: TenantDb,
  userId: string,
  id: string,
  work: (tx: TenantTx, row: Row) => Promise<void>,
  action: string,
  lockFirst?: (tx: TenantTx) => Promise<void>,
): Promise<LanguageView> {
  return inTenantTx(tdb, async (tx) => {
    await lockFirst?.(tx);
    const row = await findLanguage(tx, id, true);
    await work(tx, row);
    await logActivity(tx, { userId, action, subject: 'language', subjectId: row.id, properties: { code: row.code } });
    return view(await tx.selectFrom('languages').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow());
  });
}

export function publishLanguage(tdb: TenantDb, userId: string, id: string): Promise<LanguageView> {
  return transition(tdb, userId, id, async (tx, row) => {
    await tx.updateTable('languages').set({ status: 'published', updated_at: new Date() }).where('id', '=', row.id).execute();
  }, 'published');
}

export function unpublishLanguage(tdb: TenantDb, userId: string, id: string): Promise<LanguageView> {
  return transition(tdb, userId, id, async (tx, row) => {
    if (row.is_default) throw errors.businessRule(DEFAULT_STAYS_PUBLISHED);
    await tx.updateTable('languages').set({ status: 'unpublished', updated_at: new Date() }).where('id', '=', row.id).execute();
  }, 'unpublished');
}

export function setDefaultLanguage(tdb: TenantDb, userId: string, id: string): Promise<LanguageView> {
  return transition(tdb, userId, id, async (tx, row) => {
    if (row.status !== 'published') throw errors.businessRule(DEFAULT_MUST_BE_PUBLISHED);
    if (row.is_default) return;
    await switchDefault(tx, 'languages', row.id, new Date());
  }, 'set_default', (tx) => lockDefaults(tx, 'languages'));
}

export async function deleteLanguage(tdb: TenantDb, userId: string, id: string): Promise<void> {
  await inTenantTx(tdb, async (tx) => {
    const row = await findLanguage(tx, id, true);
    if (row.is_default) throw errors.businessRule(DEFAULT_NOT_DELETABLE);
    await tx.deleteFrom('languages').where('id', '=', row.id).execute();
    await logActivity(tx, { userId, action: 'deleted', subject: 'language', subjectId: row.id, properties: { code: row.code } });
  });
}

export interface LanguageCompleteness {
  language_id: string;
  code: string;
  /** Texts of the catalog to translate (non-empty names and descriptions). */
  total: number;
  translated: number;
  missing: number;
  complete: boolean;
}

/**
 * `GET /languages/check-incomplete`: for every published language other than the default, how many
 * catalog texts still lack a translation. `incomplete` is true when any of them misses one.
 */
export async function checkIncomplete(tdb: TenantDb): Promise<{ incomplete: boolean; languages: LanguageCompleteness[] }> {
  const langs = await tdb.selectFrom('languages').select(['id', 'code']).where('status', '=', 'published').where('is_default', '=', false).orderBy('code').execute();
  let total = 0;
  for (const f of TRANSLATABLE_FIELDS) {
    const r = await tdb
      .selectFrom(f.table)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(sql.ref(f.field), 'is not', null)
      .where(sql`btrim(${sql.ref(f.field)})`, '<>', '')
      .executeTakeFirstOrThrow();
    total += Number(r.n);
  }
  const out: LanguageCompleteness[] = [];
  for (const l of langs) {
    let translated = 0;
    for (const f of TRANSLATABLE_FIELDS) {
      const r = await tdb
        .selectFrom('translations as t')
        .innerJoin(`${f.table} as s` as 'items as s', 's.id', 't.subject_id')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('t.language_id', '=', l.id)
        .where('t.subject_type', '=', f.subject_type)
        .where('t.field', '=', f.field)
        .where(sql`btrim(t.value)`, '<>', '')
        .where(sql.ref(`s.${f.field}`), 'is not', null)
        .where(sql`btrim(${sql.ref(`s.${f.field}`)})`, '<>', '')
        .executeTakeFirstOrThrow();
      translated += Number(r.n);
    }
    out.push({ language_id: l.id, code: l.code, total, translated, missing: total - translated, complete: translated >= total });
  }
  return { incomplete: out.some((l) => !l.complete), languages: out };
}
