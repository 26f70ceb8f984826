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

/**
 * The most of a provider's answer we read: larger than any catalog page or order we take, and small
 * enough that a provider gone wrong (or a hostile endpoint behind a misconfigured URL) cannot make the
 * process hold an unbounded body until the timeout.
 */
export const MAX_PROVIDER_ANSWER_BYTES = 32 * 1024 * 1024;

/** The body of `res` as text, refused (ProviderError `invalid_response`) once it passes `maxBytes`. */
export async function readAnswerText(provider: ProviderName, res: Response, maxBytes: number = MAX_PROVIDER_ANSWER_BYTES): Promise<string> {
  const tooLarge = () => new ProviderError(provider, 'invalid_response', `answer larger than ${maxBytes} bytes (HTTP ${res.status})`, res.status);
  if (Number(res.headers.get('content-length') ?? 0) > maxBytes) {
    void res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      void reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** The JSON body of `res` (at most MAX_PROVIDER_ANSWER_BYTES), or a ProviderError `invalid_response`. */
export async function readJson(provider: ProviderName, res: Response): Promise<any> {
  const text = await readAnswerText(provider, res);
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(provider, 'invalid_response', `not JSON (HTTP ${res.status})`, res.status);
  }
}

export const trimSlash = (u: string) => u.replace(/\/+$/, '');
