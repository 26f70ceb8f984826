import { ProviderError, providerFetch, readJson, trimSlash } from '../shared/provider-error.ts';

/**
 * Geocoding provider client (CONTRACTS 6): address autocomplete and reverse geocoding over HTTP,
 * bearer API key. `GET /v1/autocomplete?q=&country=&limit=` answers `{results: Address[]}`;
 * `GET /v1/reverse?lat=&lng=` answers `{result: Address | null}` (nothing within reach is null).
 */
export interface GeocodingConfig {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly timeoutMs?: number;
}

export interface GeocodedAddress {
  readonly id: string;
  readonly label: string;
  readonly street: string;
  readonly postal_code: string;
  readonly city: string;
  readonly country: string;
  readonly lat: number;
  readonly lng: number;
}

export class GeocodingClient {
  private readonly base: string;
  constructor(private readonly config: GeocodingConfig) {
    this.base = trimSlash(config.baseUrl);
  }

  private async get(path: string): Promise<any> {
    const res = await providerFetch('geocoding', `${this.base}${path}`, { headers: { authorization: `Bearer ${this.config.apiKey}` } }, this.config.timeoutMs ?? 10_000);
    const body = await readJson('geocoding', res);
    if (!res.ok) throw new ProviderError('geocoding', 'http', typeof body?.error?.message === 'string' ? body.error.message : `HTTP ${res.status}`, res.status, body?.error?.code ?? null);
    return body;
  }

  async autocomplete(query: string, opts: { country?: string; limit?: number } = {}): Promise<GeocodedAddress[]> {
    const q = new URLSearchParams({ q: query, limit: String(opts.limit ?? 5) });
    if (opts.country) q.set('country', opts.country);
    const b = await this.get(`/v1/autocomplete?${q}`);
    if (!Array.isArray(b?.results)) throw new ProviderError('geocoding', 'invalid_response', 'answer without results');
    return b.results as GeocodedAddress[];
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress | null> {
    const b = await this.get(`/v1/reverse?${new URLSearchParams({ lat: String(lat), lng: String(lng) })}`);
    if (!b || !('result' in b)) throw new ProviderError('geocoding', 'invalid_response', 'answer without result');
    return (b.result ?? null) as GeocodedAddress | null;
  }
}
