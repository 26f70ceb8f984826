/** One validation failure, keyed by its dot path (`lines.0.qty`), in plain English. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** Field errors as the 422 body's `errors` map (CONTRACTS 3): `{ "lines.0.qty": ["..."] }`, order kept. */
export function toFieldErrorMap(errors: readonly FieldError[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const e of errors) (map[e.field] ??= []).push(e.message);
  return map;
}
