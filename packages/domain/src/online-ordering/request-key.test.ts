import { describe, expect, test } from 'bun:test';
import { REQUEST_KEY_PATTERN, requestHash } from './request-key.ts';

describe('storefront request keys', () => {
  test('the same body in another key order is the same request; another body, customer or location is not', () => {
    const h = requestHash('loc', null, { lines: [{ item_id: 'i', qty: 1 }], customer: { name: 'A B', email: 'a@b.c' } });
    expect(requestHash('loc', null, { customer: { email: 'a@b.c', name: 'A B' }, lines: [{ qty: 1, item_id: 'i' }] })).toBe(h);
    expect(requestHash('loc', null, { lines: [{ item_id: 'i', qty: 2 }], customer: { name: 'A B', email: 'a@b.c' } })).not.toBe(h);
    expect(requestHash('loc', 'm:c', { lines: [{ item_id: 'i', qty: 1 }], customer: { name: 'A B', email: 'a@b.c' } })).not.toBe(h);
    expect(requestHash('loc2', null, { lines: [{ item_id: 'i', qty: 1 }], customer: { name: 'A B', email: 'a@b.c' } })).not.toBe(h);
  });
  test('keys: the spec form and UUIDs; nothing short, long or with other characters', () => {
    for (const k of ['idemp_browser-1_1764000000000', '0193f1c2-7a4b-7c3d-9e8f-0123456789ab']) expect(REQUEST_KEY_PATTERN.test(k)).toBe(true);
    for (const k of ['short', 'x'.repeat(101), 'idemp key', "idemp_'--_1", 'idemp_a/b_1234567890123']) expect(REQUEST_KEY_PATTERN.test(k)).toBe(false);
  });
});
