import { ProviderError } from '@pos/providers/shared/provider-error';
import { errors } from '@pos/kernel';

/** The terminal providers the device routes call. */
export type DeviceProvider = 'card-a' | 'platform-a';

export const providerNotConfigured = (p: DeviceProvider) => `${p} is not configured.`;
export const providerUnavailable = (p: DeviceProvider) => `The ${p} service is unavailable, try again later.`;

/**
 * A provider call of a device route. The provider refusing the request itself (a 4xx other than 401,
 * 403 and 429: unknown reader, invalid value) is 422 `provider_refused` with the provider's own message
 * (it names the request's values, never our credentials); anything else (our key refused, throttled,
 * 5xx, unreachable, unreadable) is 503 `provider_error` with a fixed text, so no secret or internal
 * detail reaches the client. The cause is logged by the error plugin.
 */
export async function atTerminalProvider<T>(provider: DeviceProvider, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ProviderError && e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && ![401, 403, 429].includes(e.status)) {
      throw errors.businessRule(e.message.replace(`${provider}: `, ''), { reason: 'provider_refused', cause: e });
    }
    throw errors.unavailable(providerUnavailable(provider), { reason: 'provider_error', cause: e });
  }
}

/** The configured client, or 503 saying the provider is not configured. */
export function requireClient<C>(provider: DeviceProvider, client: C | null): C {
  if (!client) throw errors.unavailable(providerNotConfigured(provider), { reason: 'provider_not_configured' });
  return client;
}
