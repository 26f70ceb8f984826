import { ConfigError } from '@pos/kernel';

/**
 * `verify.admin-switch-ip`: the allow-list of client addresses that may use the on-site admin switch
 * (`ADMIN_SWITCH_IPS`: comma-separated IPv4 or IPv6 addresses and IPv4 CIDR blocks). Pure functions.
 */
export type AllowEntry =
  | { readonly kind: 'ipv4'; readonly network: number; readonly bits: number }
  | { readonly kind: 'ipv6'; readonly address: string };

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted IPv4 address as an unsigned 32-bit number, or null when it is not one. */
export function ipv4ToInt(ip: string): number | null {
  const m = IPV4.exec(ip);
  if (!m) return null;
  let n = 0;
  for (let i = 1; i <= 4; i++) {
    const part = m[i]!;
    if (part.length > 1 && part.startsWith('0')) return null; // no octal-looking octets
    const octet = Number(part);
    if (octet > 255) return null;
    n = n * 256 + octet;
  }
  return n >>> 0;
}

function maskOf(bits: number): number {
  return bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
}

/** Expands an IPv6 address to its full lowercase form (8 groups of 4 hex digits), or null. */
function expandIpv6(ip: string): string | null {
  const a = ip.toLowerCase();
  if (!/^[0-9a-f:]+$/.test(a) || a.split('::').length > 2) return null;
  const [head = '', tail] = a.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...h, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...t];
  if (groups.some((g) => g.length < 1 || g.length > 4)) return null;
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/**
 * Normalises a client address: IPv4-mapped IPv6 (`::ffff:10.1.2.3`) and `ip:port` forms become plain
 * IPv4; IPv6 is expanded. Null for anything that is not an address (`unknown`).
 */
export function normaliseAddress(raw: string): { kind: 'ipv4'; value: number } | { kind: 'ipv6'; value: string } | null {
  let a = raw.trim();
  if (a.startsWith('[') && a.includes(']')) a = a.slice(1, a.indexOf(']'));
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(a);
  if (mapped) a = mapped[1]!;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(a);
  if (withPort) a = withPort[1]!;
  const v4 = ipv4ToInt(a);
  if (v4 !== null) return { kind: 'ipv4', value: v4 };
  const v6 = expandIpv6(a);
  return v6 ? { kind: 'ipv6', value: v6 } : null;
}

/**
 * Parses `ADMIN_SWITCH_IPS` (or `variable`, e.g. `TRUSTED_PROXIES`). Empty or absent means nobody is allowed. A malformed entry is a
 * configuration error (the service refuses to start rather than silently widening or narrowing access).
 */
export function parseAllowList(raw: string | undefined | null, variable = 'ADMIN_SWITCH_IPS'): readonly AllowEntry[] {
  const out: AllowEntry[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const bad = () => new ConfigError(variable, `is invalid (entry "${entry}")`);
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      const base = ipv4ToInt(entry.slice(0, slash));
      const bitsText = entry.slice(slash + 1);
      const bits = Number(bitsText);
      if (base === null || !/^\d{1,2}$/.test(bitsText) || bits > 32) throw bad();
      out.push({ kind: 'ipv4', network: (base & maskOf(bits)) >>> 0, bits });
      continue;
    }
    const addr = normaliseAddress(entry);
    if (!addr) throw bad();
    out.push(addr.kind === 'ipv4' ? { kind: 'ipv4', network: addr.value, bits: 32 } : { kind: 'ipv6', address: addr.value });
  }
  return out;
}

/** True when `address` matches an entry of the allow-list. */
export function isAddressAllowed(list: readonly AllowEntry[], address: string): boolean {
  const a = normaliseAddress(address);
  if (!a) return false;
  return list.some((e) => {
    if (e.kind === 'ipv4') return a.kind === 'ipv4' && ((a.value & maskOf(e.bits)) >>> 0) === e.network;
    return a.kind === 'ipv6' && a.value === e.address;
  });
}
