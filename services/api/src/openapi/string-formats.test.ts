import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { FormatRegistry } from '@sinclair/typebox';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { stringFormatCheck } from './string-formats.ts';

let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

/** Formats @elysiajs/openapi leaves to Elysia's own checks (or that carry no check: an uploaded file). */
const ELYSIA_FORMATS = new Set(['integer', 'numeric', 'binary']);

function formatsOf(schema: unknown, out: Set<string>, seen = new Set<unknown>()): Set<string> {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return out;
  seen.add(schema);
  const format = (schema as { format?: unknown }).format;
  if (typeof format === 'string') out.add(format);
  for (const v of Object.values(schema)) formatsOf(v, out, seen);
  return out;
}

describe('string formats', () => {
  test('the app checks uuid and email with the patterns built once, not through a schema built per value', () => {
    expect(FormatRegistry.Get('uuid')).toBe(stringFormatCheck('uuid')!);
    expect(FormatRegistry.Get('email')).toBe(stringFormatCheck('email')!);
    expect(FormatRegistry.Get('date-time')).toBe(stringFormatCheck('date-time')!);
  });

  test("every format a route's schema uses is one of these or Elysia's own", () => {
    const used = new Set<string>();
    for (const r of api.app.routes as { hooks?: unknown }[]) formatsOf(r.hooks, used);
    expect(used.has('uuid')).toBe(true);
    // A new format here: add its check to string-formats.ts (@elysiajs/openapi replaces it by a Zod check).
    expect([...used].filter((f) => !stringFormatCheck(f) && !ELYSIA_FORMATS.has(f))).toEqual([]);
  });

  // The answers of the Zod checks these replace (@elysiajs/openapi 1.4.16, Zod 4.4), value by value.
  test('uuid: version 1-8, variant 8-b, nil and max in lower case; nothing around it', () => {
    const uuid = stringFormatCheck('uuid')!;
    const accepted = ['0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E', '11111111-1111-1111-8111-111111111111', '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'];
    const refused = [
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
      '11111111-1111-1111-1111-111111111111',
      '11111111-1111-1111-c111-111111111111',
      '11111111-1111-0111-8111-111111111111',
      '11111111-1111-9111-8111-111111111111',
      'urn:uuid:11111111-1111-1111-8111-111111111111',
      '{11111111-1111-1111-8111-111111111111}',
      '111111111111-1111-8111-111111111111',
      ' 11111111-1111-1111-8111-111111111111',
      '11111111-1111-1111-8111-111111111111\n',
      '',
    ];
    expect(accepted.filter((v) => !uuid(v))).toEqual([]);
    expect(refused.filter((v) => uuid(v))).toEqual([]);
  });

  test('email: no leading, trailing or doubled dot in the local part, a top-level domain of two letters or more', () => {
    const email = stringFormatCheck('email')!;
    const accepted = ['a@b.co', 'A.B@x.io', "o'neil@x.io", 'a+b@x.io', 'a_b-c@x-y.io', 'a@x-.io', '-@x.io', 'A@X.IO'];
    const refused = ['.a@x.io', 'a.@x.io', 'a..b@x.io', 'a@x', 'a@x.c', 'a@-x.io', 'ä@x.io', 'a@ä.io', 'a@x.io.', 'a b@x.io', 'a@x..io', '@x.io', "'@x.io", 'a@1.23', 'x@localhost', 'a@x.io\n', ''];
    expect(accepted.filter((v) => !email(v))).toEqual([]);
    expect(refused.filter((v) => email(v))).toEqual([]);
  });

  test('date-time: ISO 8601 with its zone, a date and time that exist', () => {
    const dateTime = stringFormatCheck('date-time')!;
    const accepted = ['2030-01-01T12:00:00Z', '2030-01-01T12:00:00.123Z', '2030-01-01T12:00:00.123456+02:00', '2030-01-01T12:00Z', '2030-01-01 12:00:00+00', '2030-01-01t12:00:00z', '2028-02-29T00:00:00Z', '2000-02-29T00:00:00Z', '2030-12-31T23:59:59-05:30', '2030-04-30T00:00:00+0100', '+275760-09-13T00:00:00Z', '+010000-01-01T00:00:00Z', '0000-01-01T00:00:00Z'];
    const refused = ['2030-02-31T12:00:00Z', '2030-01-01T24:00:00Z', '2030-02-29T00:00:00Z', '1900-02-29T00:00:00Z', '2030-04-31T00:00:00Z', '2030-00-10T00:00:00Z', '2030-13-01T00:00:00Z', '2030-01-00T00:00:00Z', '2030-01-01T12:60:00Z', '2030-01-01T12:00:60Z', '2030-01-01T12:00:00+24:00', '2030-01-01T12:00:00', '2030-01-01', '2030/01/01', 'x2030-01-01T12:00:00Z', '2030-01-01T12:00:00Zx', 'Tue Jan 01 2030 12:00:00 GMT+0000 (Coordinated Universal Time)', '+275760-09-13T00:00:01Z', '-000000-01-01T00:00:00Z', '-271821-04-20T00:00:00Z', '-005000-01-01T00:00:00Z', '-000001-12-31T23:59:59Z', '+12345-01-01T00:00:00Z', 'soon', ''];
    expect(accepted.filter((v) => !dateTime(v))).toEqual([]);
    expect(refused.filter((v) => dateTime(v))).toEqual([]);
  });
});
