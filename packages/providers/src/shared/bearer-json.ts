import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ProviderError, providerFetch, readJson, trimSlash, type ProviderName } from './provider-error.ts';

/** A provider API reached with a bearer token and JSON both ways (delivery-a, delivery-b, register-d). */
export interface BearerJsonConfig {
  readonly baseUrl: string;
  readonly apiToken: string;
  /** Per-request timeout; default 15 s. */
  readonly timeoutMs?: number;
}

/**
 * One call: a non-success status is a ProviderError `http` with the provider's `code` and `message`;
 * a success is checked against `schema` (null: the body is ignored), an unexpected one is
 * `invalid_response`.
 */
export async function bearerJsonCall<S extends TSchema | null>(
  provider: ProviderName,
  config: BearerJsonConfig,
  method: string,
  path: string,
  schema: S,
  body?: unknown,
): Promise<S extends TSchema ? Static<S> : null> {
  const res = await providerFetch(
    provider,
    `${trimSlash(config.baseUrl)}${path}`,
    { method, headers: { authorization: `Bearer ${config.apiToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
    config.timeoutMs ?? 15_000,
  );
  const data = await readJson(provider, res);
  if (!res.ok) {
    const code = typeof data?.code === 'string' ? data.code : null;
    throw new ProviderError(provider, 'http', typeof data?.message === 'string' ? data.message : `HTTP ${res.status}`, res.status, code);
  }
  if (schema === null) return null as never;
  if (!Value.Check(schema, data)) throw new ProviderError(provider, 'invalid_response', `unexpected answer to ${method} ${path}`, res.status);
  return data as never;
}
