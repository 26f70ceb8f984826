import { normaliseAddress } from '../devices/ip-allow-list.ts';
import type { ClientAddressResolver } from './client-address.ts';

/**
 * The subject a per-address throttle counts for a client address. An IPv6 client usually holds a whole
 * /64 (a home or server allocation) and can send each request from a new address in it, so IPv6 is
 * counted per /64 prefix. IPv4 (IPv4-mapped IPv6 included) and anything unparsable stay as given.
 */
export function throttleSubject(address: string): string {
  const a = normaliseAddress(address);
  if (a?.kind !== 'ipv6') return address;
  return `${a.value.split(':').slice(0, 4).join(':')}::/64`;
}

/** The client address as the throttles count it (`throttleSubject` of the resolved client address). */
export function throttleAddress(resolve: ClientAddressResolver): ClientAddressResolver {
  return (request, server) => throttleSubject(resolve(request, server));
}
