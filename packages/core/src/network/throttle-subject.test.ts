import { describe, expect, test } from 'bun:test';
import { throttleSubject } from './throttle-subject.ts';

describe('throttleSubject', () => {
  test('IPv6 is counted per /64; IPv4, IPv4-mapped IPv6 and unknown stay as given', () => {
    expect(throttleSubject('2001:db8:1:2::1')).toBe('2001:0db8:0001:0002::/64');
    expect(throttleSubject('2001:DB8:1:2:ffff:1:2:3')).toBe('2001:0db8:0001:0002::/64');
    expect(throttleSubject('2001:db8:1:3::1')).toBe('2001:0db8:0001:0003::/64');
    expect(throttleSubject('203.0.113.7')).toBe('203.0.113.7');
    expect(throttleSubject('::ffff:203.0.113.7')).toBe('::ffff:203.0.113.7');
    expect(throttleSubject('unknown')).toBe('unknown');
  });
});
