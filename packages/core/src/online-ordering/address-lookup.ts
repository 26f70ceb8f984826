import { errors, type Logger } from '@pos/kernel';
import { GeocodingClient, type GeocodedAddress } from '@pos/providers/geocoding';
import { ProviderError } from '@pos/providers/payments';

/**
 * Address suggestions and reverse geocoding of the storefront (spec 1 "Online ordering"), through the
 * geocoding provider client. Not configured or unreachable is 503; the provider's data is passed on
 * as the same `Address` shape.
 */
export const GEOCODING_NOT_CONFIGURED = 'Address lookup is not configured.';
export const GEOCODING_UNAVAILABLE = 'The address service could not be reached. Try again.';

export function geocodingFromEnv(env: { GEOCODING_BASE_URL?: string | undefined; GEOCODING_API_KEY?: string | undefined }): GeocodingClient | null {
  return env.GEOCODING_BASE_URL && env.GEOCODING_API_KEY ? new GeocodingClient({ baseUrl: env.GEOCODING_BASE_URL, apiKey: env.GEOCODING_API_KEY }) : null;
}

async function call<T>(client: GeocodingClient | null, log: Logger, f: (c: GeocodingClient) => Promise<T>): Promise<T> {
  if (!client) throw errors.unavailable(GEOCODING_NOT_CONFIGURED, { reason: 'geocoding_not_configured' });
  try {
    return await f(client);
  } catch (e) {
    if (e instanceof ProviderError) {
      log.warn('geocoding failed', { err: e });
      throw errors.unavailable(GEOCODING_UNAVAILABLE, { reason: 'provider_error' });
    }
    throw e;
  }
}

export function addressSuggestions(client: GeocodingClient | null, log: Logger, query: string, country?: string): Promise<GeocodedAddress[]> {
  if (query.trim().length < 3) return Promise.resolve([]);
  return call(client, log, (c) => c.autocomplete(query.trim(), { ...(country ? { country } : {}), limit: 5 }));
}

export function coordinatesToAddress(client: GeocodingClient | null, log: Logger, lat: number, lng: number): Promise<GeocodedAddress | null> {
  return call(client, log, (c) => c.reverse(lat, lng));
}
