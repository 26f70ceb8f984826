/** True for PostgreSQL `unique_violation` (SQLSTATE 23505), of the named constraint when one is given. */
export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: unknown; constraint?: unknown } | null;
  return err?.code === '23505' && (constraint === undefined || err.constraint === constraint);
}

/** True for PostgreSQL `foreign_key_violation` (SQLSTATE 23503). */
export function isForeignKeyViolation(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === '23503';
}

/** True for PostgreSQL `lock_not_available` (SQLSTATE 55P03): a `lock_timeout` or `NOWAIT` gave up waiting. */
export function isLockNotAvailable(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === '55P03';
}
