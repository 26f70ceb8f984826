/** The provider words of payment providers (spec 1 neutral words). */
export type ProviderName = 'card-a' | 'card-b' | 'platform-a' | 'register-a' | 'register-b' | 'register-c' | 'register-d' | 'geocoding' | 'delivery-a' | 'delivery-b';

/**
 * What every provider client throws. `kind`:
 * - `http`: the provider answered with a non-success status (`status`, the provider's `code` and message);
 * - `network`: the provider could not be reached;
 * - `timeout`: no answer within the client's timeout;
 * - `invalid_response`: an answer we could not read.
 * Use cases translate it into the kernel's errors; its message is for logs, not for clients.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly kind: 'http' | 'network' | 'timeout' | 'invalid_response',
    message: string,
    readonly status: number | null = null,
    readonly code: string | null = null,
  ) {
    super(`${provider}: ${message}`);
    this.name = 'ProviderError';
  }
}

export interface HttpClientOptions {
  /** Base URL of the provider (or of its simulator), without a trailing slash. */
  readonly baseUrl: string;
  /** Per-request timeout; default 15 s. */
  readonly timeoutMs?: number;
}

/** One request with a timeout; network failures and timeouts become a ProviderError. */
export async function providerFetch(provider: ProviderName, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    const name = (e as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') throw new ProviderError(provider, 'timeout', `no answer within ${timeoutMs} ms`);
    throw new ProviderError(provider, 'network', e instanceof Error ? e.message : String(e));
  }
}

/** The JSON body of `res`, or a ProviderError `invalid_response`. */
export async function readJson(provider: ProviderName, res: Response): Promise<any> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(provider, 'invalid_response', `not JSON (HTTP ${res.status})`, res.status);
  }
}

export const trimSlash = (u: string) => u.replace(/\/+$/, '');
