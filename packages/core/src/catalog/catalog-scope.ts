import type Redis from 'ioredis';
import { isUniqueViolation, withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { errors, type AppErrorOptions } from '@pos/kernel';
import type { Access } from '../auth/access.ts';
import { isUuid } from '@pos/domain/ids';

/** What the catalog use cases need from a back-office request. */
export interface CatalogScope {
  readonly tdb: TenantDb;
  readonly redis: Redis;
  readonly merchantId: string;
  readonly access: Access;
  readonly now: Date;
}

export const newId = () => Bun.randomUUIDv7();

/**
 * One transaction on the merchant's schema, retried on write conflicts; `after` runs once the
 * transaction committed (cache invalidation), with what the work returned.
 */
export async function catalogTx<T>(scope: Pick<CatalogScope, 'tdb'>, work: (tx: TenantTx) => Promise<T>): Promise<T> {
  return withWriteRetry(() => scope.tdb.transaction().execute(work));
}

/** A refusal that depends on the state of a record: 409 with a stable reason. */
export const stateConflict = (reason: string, message: string, opts: AppErrorOptions = {}) => errors.conflict(message, { ...opts, reason });

/** A row of the bound merchant by id, or 404 `Unable to locate the {model} you requested.` */
export async function findOr404<T>(model: string, id: string, load: (id: string) => Promise<T | undefined>): Promise<T> {
  const row = isUuid(id) ? await load(id) : undefined;
  if (!row) throw errors.notFound(model);
  return row;
}

/** The tables whose ids a body may name (`requireIds`, `lockedIds`). */
type LockableTable = 'items' | 'categories' | 'modifier_groups' | 'display_groups' | 'locations' | 'menus' | 'contents' | 'inventory_history';

/**
 * Checks that every id of a body list exists in the merchant's table; an unknown or foreign id is a 422
 * on its field (`field.N`, or `field` for a single id). The rows found are locked until the caller's
 * transaction ends (`FOR KEY SHARE`, or `FOR UPDATE` for a caller about to delete them): a concurrent
 * delete either waits for our commit, or we wait for it and find the row gone (the same 422), so an id
 * checked here is never a foreign-key violation (a 500) a moment later.
 */
export async function requireIds(
  tx: TenantDb | TenantTx,
  table: LockableTable,
  ids: readonly string[],
  field: string,
  label: string,
  single = false,
  lock: 'key share' | 'update' = 'key share',
): Promise<void> {
  const have = await lockedIds(tx, table, ids, lock);
  const problems: Record<string, string[]> = {};
  ids.forEach((id, i) => {
    if (!isUuid(id) || !have.has(id.toLowerCase())) problems[single ? field : `${field}.${i}`] = [`The selected ${label} is invalid.`];
  });
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
}

/**
 * The ids among `ids` (UUIDs, any case) that exist in the merchant's `table`, lower-cased, their rows
 * locked until the caller's transaction ends (`requireIds` says why).
 */
export async function lockedIds(tx: TenantDb | TenantTx, table: LockableTable, ids: readonly string[], lock: 'key share' | 'update' = 'key share'): Promise<Set<string>> {
  const wanted = [...new Set(ids.filter(isUuid).map((s) => s.toLowerCase()))];
  if (wanted.length === 0) return new Set();
  const q = (tx as TenantDb).selectFrom(table).select('id').where('id', 'in', wanted);
  const found = await (lock === 'update' ? q.forUpdate() : q.forKeyShare()).execute();
  return new Set(found.map((r) => r.id.toLowerCase()));
}

/** 422 when a list holds the same value twice. */
export function requireDistinct(values: readonly string[], field: string): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    const k = v.toLowerCase();
    if (seen.has(k)) throw errors.field(`${field}.${i}`, `The ${field}.${i} field has a duplicate value.`);
    seen.add(k);
  });
}

export const iso = (d: Date | string | null | undefined): string | null => (d == null ? null : new Date(d).toISOString());

/** Runs a write; a unique violation of `constraint` (a concurrent request wrote the same value first) becomes `refusal`, the answer a sequential request gets. */
export async function uniqueOr<T>(write: Promise<T>, constraint: string, refusal: () => Error): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (isUniqueViolation(e, constraint)) throw refusal();
    throw e;
  }
}
