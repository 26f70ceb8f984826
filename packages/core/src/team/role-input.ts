import { isBackofficePermission } from '@pos/domain/permissions';
import type { FieldErrors } from '@pos/kernel';
import type { TenantDb, TenantTx } from '@pos/db';
import { sql } from 'kysely';
import { addError, throwIfInvalid } from './team-scope.ts';

export interface RoleInput {
  name: string;
  /** Back-office permission slugs (spec 1 catalogue); duplicates are folded. */
  permissions: readonly string[];
}

export const NAME_TAKEN = 'The name has already been taken.';

/**
 * Validates a role write: a non-blank name unique (case-insensitive) within the merchant, and every
 * permission in the back-office catalogue (`permissions.N` otherwise). Throws one 422 with all errors.
 * `authorize` runs before that 422 with the distinct catalogue permissions of the input (a 403 it
 * throws comes first).
 */
export async function validateRoleInput(
  tdb: TenantDb | TenantTx,
  input: RoleInput,
  exceptRoleId?: string,
  authorize?: (permissions: string[]) => void | Promise<void>,
): Promise<{ name: string; permissions: string[] }> {
  const errs: FieldErrors = {};
  const name = input.name.trim();
  if (!name) addError(errs, 'name', 'The name field is required.');
  else {
    let q = tdb.selectFrom('roles').select('id').where(sql<string>`lower(name)`, '=', name.toLowerCase());
    if (exceptRoleId) q = q.where('id', '!=', exceptRoleId);
    if (await q.executeTakeFirst()) addError(errs, 'name', NAME_TAKEN);
  }
  input.permissions.forEach((p, i) => {
    if (!isBackofficePermission(p)) addError(errs, `permissions.${i}`, `The selected permissions.${i} is invalid.`);
  });
  const permissions = [...new Set(input.permissions)];
  if (authorize) await authorize(permissions.filter(isBackofficePermission));
  throwIfInvalid(errs);
  return { name, permissions };
}
