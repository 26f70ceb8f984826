import { expect, test } from 'bun:test';
import { canonicalJson } from './canonical-json.ts';

test('sorts keys at every depth and drops undefined members', () => {
  expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: undefined, w: null }], c: 'é' } })).toBe('{"a":{"c":"é","d":[2,{"w":null,"y":1}]},"b":1}');
});

test('equal values in another key order serialise identically', () => {
  expect(canonicalJson({ a: 1, b: [1, 2] })).toBe(canonicalJson(JSON.parse('{"b":[1,2],"a":1.0}')));
});

test('refuses values JSON cannot carry', () => {
  expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
  expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
});
