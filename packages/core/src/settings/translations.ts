import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import { TranslationUnavailable, type TranslationClient } from '@pos/providers/translation/translation-client';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { paging, likePattern, type Datatable } from '../shared/datatable.ts';
import { findLanguage, TRANSLATABLE_FIELDS } from './languages.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Translations (spec 1 "Settings"): one text per language, record and field, over the catalog texts
 * `TRANSLATABLE_FIELDS` names. Saving an empty value removes the translation. Auto-translate sends
 * the source text to the translation provider (`TRANSLATION_BASE_URL`) in the language's code and
 * saves the answer; bulk does so for every text the language still lacks.
 */
export const TRANSLATION_NOT_CONFIGURED = 'Automatic translation is not configured.';
export const TRANSLATION_UNAVAILABLE = 'The translation service is unavailable.';
/** Texts one bulk call translates; the answer says how many are still missing. */
export const BULK_BATCH = 500;

export type SubjectType = 'item' | 'category';
export type Field = 'name' | 'description';

export interface TranslationRow {
  subject_type: SubjectType;
  subject_id: string;
  field: Field;
  source: string;
  value: string | null;
}

/** Every non-empty catalog text with its translation in `languageId` (or null), as a subquery. */
function texts(tdb: TenantDb, languageId: string) {
  const parts = TRANSLATABLE_FIELDS.map((f) =>
    (tdb as any)
      .selectFrom(f.table)
      .select([sql.lit(f.subject_type).as('subject_type'), 'id as subject_id', sql.lit(f.field).as('field'), `${f.field} as source`])
      .where(f.field, 'is not', null)
      .where(sql`btrim(${sql.ref(f.field)})`, '<>', ''),
  );
  const union = parts.slice(1).reduce((q: any, p: any) => q.unionAll(p), parts[0]);
  return (tdb as any)
    .selectFrom(union.as('s'))
    .leftJoin('translations as t', (j: any) =>
      j.onRef('t.subject_id', '=', 's.subject_id').onRef('t.subject_type', '=', 's.subject_type').onRef('t.field', '=', 's.field').on('t.language_id', '=', languageId),
    );
}

export interface TranslationFilters {
  language_id: string;
  subject_type?: SubjectType;
  missing?: 'true' | 'false';
  search?: string;
  page?: number;
  per_page?: number;
}

export async function translationDatatable(tdb: TenantDb, q: TranslationFilters): Promise<Datatable<TranslationRow> & { language_id: string }> {
  const lang = await findLanguage(tdb, q.language_id);
  const { page, perPage, offset } = paging(q);
  let base = texts(tdb, lang.id);
  if (q.subject_type) base = base.where('s.subject_type', '=', q.subject_type);
  if (q.missing === 'true') base = base.where('t.id', 'is', null);
  if (q.missing === 'false') base = base.where('t.id', 'is not', null);
  if (q.search?.trim()) {
    const p = likePattern(q.search.trim());
    base = base.where((eb: any) => eb.or([eb('s.source', 'ilike', p), eb('t.value', 'ilike', p)]));
  }
  const [count, rows] = await Promise.all([
    base.select((eb: any) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow() as Promise<{ n: string }>,
    base
      .select(['s.subject_type', 's.subject_id', 's.field', 's.source', 't.value'])
      .orderBy('s.subject_type')
      .orderBy('s.source')
      .orderBy('s.field')
      .orderBy('s.subject_id')
      .limit(perPage)
      .offset(offset)
      .execute() as Promise<TranslationRow[]>,
  ]);
  return { data: rows.map((r) => ({ ...r, value: r.value ?? null })), total: Number(count.n), page, per_page: perPage, language_id: lang.id };
}

export async function listTranslations(tdb: TenantDb, languageId: string) {
  const lang = await findLanguage(tdb, languageId);
  const rows = await tdb.selectFrom('translations').select(['subject_type', 'subject_id', 'field', 'value', 'updated_at']).where('language_id', '=', lang.id).orderBy('subject_type').orderBy('subject_id').orderBy('field').execute();
  return rows.map((r) => ({ ...r, updated_at: r.updated_at.toISOString() }));
}

async function sourceText(tdb: TenantDb, subjectType: SubjectType, subjectId: string, field: Field): Promise<string> {
  const table = subjectType === 'item' ? 'items' : 'categories';
  const row = isUuid(subjectId) ? await (tdb as any).selectFrom(table).select(`${field} as source`).where('id', '=', subjectId).executeTakeFirst() : undefined;
  if (!row) throw errors.notFound(subjectType);
  return (row.source as string | null) ?? '';
}

export interface SaveInput {
  language_id: string;
  subject_type: SubjectType;
  subject_id: string;
  field: Field;
  value: string;
}

async function upsert(tdb: TenantDb, userId: string, languageId: string, rows: { subject_type: SubjectType; subject_id: string; field: Field; value: string }[], action: string): Promise<void> {
  if (!rows.length) return;
  await inTenantTx(tdb, async (tx) => {
    // The language is read again under a key-share lock in the writing transaction: an auto-translation
    // waits seconds on the provider, and a language deleted meanwhile is the 404 a later request gets
    // (it was a 500 on the foreign key); a deletion sent now waits for this commit and takes its rows.
    const lang = await tx.selectFrom('languages').select('id').where('id', '=', languageId).forKeyShare().executeTakeFirst();
    if (!lang) throw errors.notFound('language');
    const now = new Date();
    await tx
      .insertInto('translations')
      .values(rows.map((r) => ({ id: Bun.randomUUIDv7(), language_id: languageId, ...r, updated_at: now })))
      .onConflict((oc) => oc.constraint('translations_one_per_field').doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), updated_at: now })))
      .execute();
    await logActivity(tx, { userId, action, subject: 'translation', subjectId: languageId, properties: { count: rows.length } });
  });
}

/** Saves one translation; an empty (or blank) value removes it. */
export async function saveTranslation(tdb: TenantDb, userId: string, input: SaveInput): Promise<TranslationRow> {
  const lang = await findLanguage(tdb, input.language_id);
  const source = await sourceText(tdb, input.subject_type, input.subject_id, input.field);
  const value = input.value.trim();
  if (!value) {
    await inTenantTx(tdb, async (tx) => {
      await tx.deleteFrom('translations').where('language_id', '=', lang.id).where('subject_type', '=', input.subject_type).where('subject_id', '=', input.subject_id).where('field', '=', input.field).execute();
      await logActivity(tx, { userId, action: 'deleted', subject: 'translation', subjectId: lang.id, properties: { count: 1 } });
    });
  } else {
    await upsert(tdb, userId, lang.id, [{ subject_type: input.subject_type, subject_id: input.subject_id, field: input.field, value }], 'updated');
  }
  return { subject_type: input.subject_type, subject_id: input.subject_id, field: input.field, source, value: value || null };
}

function requireClient(client: TranslationClient | null): TranslationClient {
  if (!client) throw errors.unavailable(TRANSLATION_NOT_CONFIGURED, { reason: 'translation_not_configured' });
  return client;
}

async function machineTranslate(client: TranslationClient, texts: string[], target: string): Promise<string[]> {
  try {
    return await client.translate(texts, target);
  } catch (e) {
    if (e instanceof TranslationUnavailable) throw errors.unavailable(TRANSLATION_UNAVAILABLE, { reason: 'translation_unavailable' });
    throw e;
  }
}

/** Auto-translates one text into the language and saves it. */
export async function autoTranslate(tdb: TenantDb, client: TranslationClient | null, userId: string, input: Omit<SaveInput, 'value'>): Promise<TranslationRow> {
  const lang = await findLanguage(tdb, input.language_id);
  const source = await sourceText(tdb, input.subject_type, input.subject_id, input.field);
  if (!source.trim()) throw errors.field('field', 'The field has no text to translate.');
  const [value] = await machineTranslate(requireClient(client), [source], lang.code);
  await upsert(tdb, userId, lang.id, [{ subject_type: input.subject_type, subject_id: input.subject_id, field: input.field, value: value! }], 'auto_translated');
  return { subject_type: input.subject_type, subject_id: input.subject_id, field: input.field, source, value: value! };
}

async function missingTexts(tdb: TenantDb, languageId: string, limit: number): Promise<{ rows: TranslationRow[]; missing: number; total: number }> {
  const base = texts(tdb, languageId);
  const [counts, rows] = await Promise.all([
    base.select((eb: any) => [eb.fn.countAll().as('total'), eb.fn.count('t.id').as('translated')]).executeTakeFirstOrThrow() as Promise<{ total: string; translated: string }>,
    base.where('t.id', 'is', null).select(['s.subject_type', 's.subject_id', 's.field', 's.source']).orderBy('s.subject_type').orderBy('s.subject_id').orderBy('s.field').limit(limit).execute() as Promise<TranslationRow[]>,
  ]);
  return { rows, missing: Number(counts.total) - Number(counts.translated), total: Number(counts.total) };
}

/** `GET /translations/bulk/{id}`: how many texts the language has, and how many it still lacks. */
export async function bulkStatus(tdb: TenantDb, languageId: string): Promise<{ language_id: string; total: number; missing: number }> {
  const lang = await findLanguage(tdb, languageId);
  const { missing, total } = await missingTexts(tdb, lang.id, 1);
  return { language_id: lang.id, total, missing };
}

/** `POST /translations/bulk/{id}`: auto-translates up to BULK_BATCH missing texts of the language. */
export async function bulkTranslate(tdb: TenantDb, client: TranslationClient | null, userId: string, languageId: string): Promise<{ language_id: string; translated: number; missing: number; total: number }> {
  const lang = await findLanguage(tdb, languageId);
  const c = requireClient(client);
  const { rows, total } = await missingTexts(tdb, lang.id, BULK_BATCH);
  const values = rows.length ? await machineTranslate(c, rows.map((r) => r.source), lang.code) : [];
  await upsert(tdb, userId, lang.id, rows.map((r, i) => ({ subject_type: r.subject_type, subject_id: r.subject_id, field: r.field, value: values[i]! })), 'auto_translated');
  const after = await missingTexts(tdb, lang.id, 1);
  return { language_id: lang.id, translated: rows.length, missing: after.missing, total };
}
