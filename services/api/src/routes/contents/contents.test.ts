import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70]);

async function upload(parts: { bytes: Uint8Array; filename: string; type: string; name?: string; extra?: Record<string, string> }, token = owner) {
  const form = new FormData();
  form.append('file', new File([parts.bytes], parts.filename, { type: parts.type }));
  if (parts.name) form.append('name', parts.name);
  for (const [k, v] of Object.entries(parts.extra ?? {})) form.append(k, v);
  const res = await api.app.handle(new Request('http://localhost/api/back-office/contents', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}
const call = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const rows = async () => (await tdb.selectFrom('contents').select('id').execute()).length;

beforeAll(async () => {
  api = await createTestApi({ env: { CONTENT_MAX_BYTES: '2048' } });
  m = await api.seed('contents');
  other = await api.seed('contents-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

describe('contents', () => {
  let id: string;
  test('upload an image: the type comes from its bytes; the bytes are served back', async () => {
    const r = await upload({ bytes: JPEG, filename: 'photo.png', type: 'image/png', name: 'Espresso photo' });
    expect(r.status).toBe(201);
    id = r.body.data.id;
    expect(r.body.data).toEqual({
      id: expect.any(String),
      name: 'Espresso photo',
      alt_text: null,
      content_type: 'image/jpeg',
      size_bytes: JPEG.length,
      url: `/api/back-office/contents/${id}?download=true`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const file = await api.app.handle(new Request(`http://localhost/api/back-office/contents/${id}?download=true`, { headers: { authorization: `Bearer ${owner}` } }));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(JPEG);
    expect((await call('GET', `/contents/${id}`)).body.data.name).toBe('Espresso photo');
  });

  test('not an image (whatever its declared type), empty or too large: 422 on file, nothing stored', async () => {
    const before = await rows();
    const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    expect(await upload({ bytes: svg, filename: 'x.png', type: 'image/png' })).toMatchObject({ status: 422, body: { errors: { file: ['The file must be an image: JPEG, PNG, GIF or WebP.'] } } });
    expect(await upload({ bytes: new Uint8Array([]), filename: 'e.png', type: 'image/png' })).toMatchObject({ status: 422, body: { errors: { file: ['The file may not be empty.'] } } });
    const big = new Uint8Array(4096);
    big.set(PNG);
    expect(await upload({ bytes: big, filename: 'big.png', type: 'image/png' })).toMatchObject({ status: 422, body: { errors: { file: ['The file may not be greater than 2 kilobytes.'] } } });
    expect((await upload({ bytes: PNG, filename: 'p.png', type: 'image/png', extra: { colour: 'red' } })).status).toBe(422);
    expect(await rows()).toBe(before);
  });

  test('update, list, datatable, an item image, and delete several', async () => {
    expect((await call('POST', `/contents/${id}`, { alt_text: 'A small coffee' })).body.data.alt_text).toBe('A small coffee');
    const second = (await upload({ bytes: PNG, filename: 'logo.png', type: 'image/png' })).body.data.id;
    expect((await call('GET', '/contents')).body.data.map((c: { id: string }) => c.id)).toEqual([second, id]);
    const dt = await call('GET', '/contents/datatable?search=espresso');
    expect(dt.body).toMatchObject({ total: 1, data: [{ id }] });
    expect((await call('GET', '/contents/datatable?content_type=image/png')).body.data.map((c: { id: string }) => c.id)).toEqual([second]);

    const espresso = m.items.find((i) => i.name === 'Espresso')!.id;
    expect((await call('PUT', `/items/${espresso}`, { image_content_id: id })).body.data.image_content_id).toBe(id);
    const foreign = (await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('locations').select('id').executeTakeFirstOrThrow()).id;
    expect((await call('PUT', `/items/${espresso}`, { image_content_id: foreign })).body.errors).toEqual({ image_content_id: ['The selected image content id is invalid.'] });

    expect((await call('DELETE', '/contents', { ids: [id, crypto.randomUUID()] })).body.errors).toEqual({ 'ids.1': ['The selected content is invalid.'] });
    expect(await rows()).toBe(2);
    expect((await call('DELETE', '/contents', { ids: [id, second] })).body).toEqual({ status: 'success', deleted: 2 });
    expect(await rows()).toBe(0);
    expect((await call('GET', `/items/${espresso}`)).body.data.image_content_id).toBeNull();
    expect(await call('GET', `/contents/${id}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
  });

  test('the same content deleted by two requests at once: one deletes it, the other answers as for an unknown id', async () => {
    for (let round = 0; round < 3; round++) {
      const c = (await upload({ bytes: PNG, filename: `twice-${round}.png`, type: 'image/png' })).body.data.id;
      const rs = await atOnce(2, () => call('DELETE', '/contents', { ids: [c] }));
      expect(sortedStatuses(rs)).toEqual([200, 422]);
      expect(rs.find((r) => r.status === 200)!.body).toEqual({ status: 'success', deleted: 1 });
      expect(rs.find((r) => r.status === 422)!.body).toEqual({ message: 'The selected content is invalid.', errors: { 'ids.0': ['The selected content is invalid.'] } });
    }
  });

  test('an item given an image deleted at the same moment: 200 with the image gone, or 422 on image_content_id; never a 500', async () => {
    const espresso = m.items.find((i) => i.name === 'Espresso')!.id;
    for (let round = 0; round < 4; round++) {
      const c = (await upload({ bytes: PNG, filename: `raced-${round}.png`, type: 'image/png' })).body.data.id;
      const [u, d] = await Promise.all([call('PUT', `/items/${espresso}`, { image_content_id: c }), Bun.sleep(round % 2).then(() => call('DELETE', '/contents', { ids: [c] }))]);
      expect(d.status).toBe(200);
      if (u.status === 200) expect((await call('GET', `/items/${espresso}`)).body.data.image_content_id).toBeNull();
      else expect([u.status, u.body.errors]).toEqual([422, { image_content_id: ['The selected image content id is invalid.'] }]);
    }
  });
});
