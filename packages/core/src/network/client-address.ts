import { isAddressAllowed, normaliseAddress, type AllowEntry } from '../devices/ip-allow-list.ts';

/** The parts of a Bun server this needs (absent when a test drives the app without a socket). */
export interface SocketInfo {
  requestIP(request: Request): { address: string } | null;
}

export type ClientAddressResolver = (request: Request, server: SocketInfo | null | undefined) => string;

/**
 * The client's address (issue 8): the socket's, unless the socket is a configured trusted proxy
 * (`TRUSTED_PROXIES`, empty by default). Then `X-Forwarded-For` is read from the right, skipping
 * trusted hops, and the first untrusted hop is the client: the left part of the header is whatever
 * the client wrote and is never believed on its own.
 */
export function createClientAddress(trusted: readonly AllowEntry[]): ClientAddressResolver {
  return (request, server) => {
    const socket = server?.requestIP(request)?.address ?? 'unknown';
    if (!trusted.length || !isAddressAllowed(trusted, socket)) return socket;
    const hops = (request.headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter(Boolean);
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (!normaliseAddress(hop)) return socket; // a garbled chain: fall back to what we know
      if (!isAddressAllowed(trusted, hop)) return hop;
    }
    return hops[0] ?? socket;
  };
}
