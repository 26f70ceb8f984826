import { describe, expect, test } from 'bun:test';
import { ConfigError } from '@pos/kernel';
import { ipv4ToInt, isAddressAllowed, normaliseAddress, parseAllowList } from './ip-allow-list.ts';

describe('ipv4ToInt', () => {
  test('parses dotted quads and refuses the rest', () => {
    expect(ipv4ToInt('0.0.0.0')).toBe(0);
    expect(ipv4ToInt('255.255.255.255')).toBe(0xffffffff);
    expect(ipv4ToInt('10.1.2.3')).toBe(0x0a010203);
    expect(ipv4ToInt('256.1.1.1')).toBeNull();
    expect(ipv4ToInt('1.2.3')).toBeNull();
    expect(ipv4ToInt('01.2.3.4')).toBeNull();
    expect(ipv4ToInt('a.b.c.d')).toBeNull();
  });
});

describe('normaliseAddress', () => {
  test('IPv4-mapped IPv6 and ip:port become IPv4; IPv6 expands', () => {
    expect(normaliseAddress('::ffff:10.1.2.3')).toEqual({ kind: 'ipv4', value: 0x0a010203 });
    expect(normaliseAddress('10.1.2.3:5555')).toEqual({ kind: 'ipv4', value: 0x0a010203 });
    expect(normaliseAddress('::1')).toEqual({ kind: 'ipv6', value: '0000:0000:0000:0000:0000:0000:0000:0001' });
    expect(normaliseAddress('[2001:DB8::1]')).toEqual({ kind: 'ipv6', value: '2001:0db8:0000:0000:0000:0000:0000:0001' });
    expect(normaliseAddress('unknown')).toBeNull();
    expect(normaliseAddress('1::2::3')).toBeNull();
  });
});

describe('parseAllowList / isAddressAllowed', () => {
  const list = parseAllowList(' 10.1.2.3 , 192.168.0.0/16,2001:db8::1,172.16.5.9/12 ');

  test('absent or empty allows nobody', () => {
    expect(parseAllowList(undefined)).toEqual([]);
    expect(parseAllowList('')).toEqual([]);
    expect(isAddressAllowed(parseAllowList(''), '10.1.2.3')).toBe(false);
  });

  test('single addresses match exactly', () => {
    expect(isAddressAllowed(list, '10.1.2.3')).toBe(true);
    expect(isAddressAllowed(list, '10.1.2.4')).toBe(false);
    expect(isAddressAllowed(list, '::ffff:10.1.2.3')).toBe(true);
    expect(isAddressAllowed(list, '2001:0db8:0:0::1')).toBe(true);
    expect(isAddressAllowed(list, '2001:db8::2')).toBe(false);
  });

  test('CIDR blocks match their range (host bits of the base are ignored)', () => {
    expect(isAddressAllowed(list, '192.168.0.1')).toBe(true);
    expect(isAddressAllowed(list, '192.168.255.254')).toBe(true);
    expect(isAddressAllowed(list, '192.169.0.1')).toBe(false);
    expect(isAddressAllowed(list, '172.16.0.1')).toBe(true);
    expect(isAddressAllowed(list, '172.31.255.255')).toBe(true);
    expect(isAddressAllowed(list, '172.32.0.0')).toBe(false);
    expect(isAddressAllowed(parseAllowList('0.0.0.0/0'), '8.8.8.8')).toBe(true);
    expect(isAddressAllowed(parseAllowList('8.8.8.8/32'), '8.8.8.8')).toBe(true);
  });

  test('anything that is not an address never matches', () => {
    expect(isAddressAllowed(list, 'unknown')).toBe(false);
    expect(isAddressAllowed(list, '')).toBe(false);
  });

  test('a malformed entry is a configuration error naming the variable', () => {
    for (const bad of ['10.1.2', '10.0.0.0/33', '10.0.0.0/', 'host.example', '2001:db8::/32']) {
      expect(() => parseAllowList(bad)).toThrow(ConfigError);
    }
    expect(() => parseAllowList('nope')).toThrow('Invalid configuration: ADMIN_SWITCH_IPS is invalid (entry "nope")');
  });
});
