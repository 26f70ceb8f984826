/**
 * EU VAT number check client (CONTRACTS 6 "VAT check"): the REST shape of the EU's VIES service,
 * `POST {base}/check-vat-number` with `{countryCode, vatNumber}`, answering `{valid, name, address}`
 * or `{actionSucceed:false, errorWrappers:[{error}]}` when a member state's registry is down.
 * Never throws: every failure (network, timeout, HTTP error, unreadable answer) is `unavailable`,
 * because the caller fails open.
 */
export interface VatCheckConfig {
  /** Base URL (`VAT_CHECK_BASE_URL`), without a trailing slash. */
  readonly baseUrl: string;
  /** Per-request timeout; default 5 s (the back office waits on it). */
  readonly timeoutMs?: number;
}

export type VatCheckAnswer =
  | { readonly result: 'valid'; readonly name: string | null; readonly address: string | null }
  | { readonly result: 'invalid' }
  | { readonly result: 'unavailable'; readonly reason: string };

export class VatCheckClient {
  private readonly base: string;
  private readonly timeoutMs: number;
  constructor(config: VatCheckConfig) {
    this.base = config.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = config.timeoutMs ?? 5_000;
  }

  async check(countryCode: string, vatNumber: string): Promise<VatCheckAnswer> {
    let res: Response;
    try {
      res = await fetch(`${this.base}/check-vat-number`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ countryCode, vatNumber }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      const name = (e as { name?: string } | null)?.name;
      return { result: 'unavailable', reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network' };
    }
    let body: any;
    try {
      body = await res.json();
    } catch {
      return { result: 'unavailable', reason: `unreadable answer (HTTP ${res.status})` };
    }
    if (!res.ok || body?.actionSucceed === false) {
      const code = Array.isArray(body?.errorWrappers) && typeof body.errorWrappers[0]?.error === 'string' ? body.errorWrappers[0].error : `HTTP ${res.status}`;
      return { result: 'unavailable', reason: code };
    }
    if (typeof body?.valid !== 'boolean') return { result: 'unavailable', reason: 'unreadable answer' };
    if (!body.valid) return { result: 'invalid' };
    const text = (v: unknown) => (typeof v === 'string' && v.trim() && v.trim() !== '---' ? v.trim() : null);
    return { result: 'valid', name: text(body.name), address: text(body.address) };
  }
}
