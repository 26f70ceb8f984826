import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over content uploads (spec 1 "Content, inventories, tax rates"). */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let tdb: TenantDb;
let owner: string;
let ownerOther: string;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

async function upload(form: FormData, token = owner) {
  const res = await api.app.handle(new Request('http://localhost/api/back-office/contents', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}
const png = (filename: string, extra: Record<string, string> = {}) => {
  const f = new FormData();
  f.append('file', new File([PNG], filename, { type: 'image/png' }));
  for (const [k, v] of Object.entries(extra)) f.append(k, v);
  return f;
};
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office${path}`, { token, body });
const rows = () => tdb.selectFrom('contents').select(['id', 'name', 'alt_text']).orderBy('id').execute();

beforeAll(async () => {
  api = await createTestApi({ env: { CONTENT_MAX_BYTES: '2048' } });
  m = await api.seed('contents-adv');
  other = await api.seed('contents-adv-other');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
  ownerOther = await api.ownerToken(other);
}, 60_000);
afterAll(() => api.close());

describe('contents, adversarial', () => {
  test('a content renamed while it is deleted: 200 or 404 for the rename, never a 500 (the update found no row)', async () => {
    for (let round = 0; round < 10; round++) {
      const id = (await upload(png(`race-${round}.png`))).body.data.id as string;
      const [u, d] = await Promise.all([call('POST', `/contents/${id}`, { name: 'Renamed' }), Bun.sleep(round % 3).then(() => call('DELETE', '/contents', { ids: [id] }))]);
      expect(d).toMatchObject({ status: 200, body: { status: 'success', deleted: 1 } });
      if (u.status !== 200) expect(u).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    }
    expect(await rows()).toEqual([]);
  });

  test('uploads that are not one image file are 422 on file; a blank name falls back; nothing stored on a refusal', async () => {
    const before = await rows();
    const two = new FormData();
    two.append('file', new File([PNG], 'a.png', { type: 'image/png' }));
    two.append('file', new File([PNG], 'b.png', { type: 'image/png' }));
    expect((await upload(two)).status).toBe(422);
    const text = new FormData();
    text.append('file', 'not a file');
    expect(await upload(text)).toMatchObject({ status: 422, body: { errors: { file: [expect.any(String)] } } });
    expect(await upload(new FormData())).toMatchObject({ status: 422, body: { errors: { file: ['The file field is required.'] } } });
    const json = await call('POST', '/contents', { file: 'iVBORw0KGgo=' });
    expect(json.status).toBe(422);
    expect(await upload(png('x.png', { name: 'x'.repeat(256) }))).toMatchObject({ status: 422 });
    expect(await rows()).toEqual(before);
    const blank = await upload(png('   .png', { name: '   ' }));
    expect(blank).toMatchObject({ status: 201, body: { data: { name: 'upload' } } });
  });

  test('another merchant\'s content is a 404 to read, download and rename and a 422 to delete; a member without the permission is a 403; nothing changes', async () => {
    const id = (await upload(png('mine.png', { name: 'Mine' }))).body.data.id as string;
    const before = await rows();
    expect(await call('GET', `/contents/${id}`, undefined, ownerOther)).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    expect(await call('GET', `/contents/${id}?download=true`, undefined, ownerOther)).toMatchObject({ status: 404 });
    expect(await call('POST', `/contents/${id}`, { name: 'Stolen' }, ownerOther)).toMatchObject({ status: 404 });
    expect(await call('DELETE', '/contents', { ids: [id] }, ownerOther)).toMatchObject({ status: 422, body: { errors: { 'ids.0': ['The selected content is invalid.'] } } });
    const viewer = await makeMember(api, m, ['VIEW_CONTENT']);
    expect(await upload(png('v.png'), viewer.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await call('DELETE', '/contents', { ids: [id] }, viewer.token)).toMatchObject({ status: 403 });
    expect(await call('POST', `/contents/${id}`, { name: '  ' })).toMatchObject({ status: 422 });
    expect(await rows()).toEqual(before);
  });
});

describe('uploads per merchant', () => {
  test('200 an hour, then 429 and nothing stored; another merchant still uploads', async () => {
    const mm = await api.seed('contents-quota');
    const token = await api.ownerToken(mm);
    const statuses: number[] = [];
    for (let i = 0; i < 201; i++) statuses.push((await upload(png(`q-${i}.png`), token)).status);
    // Before: no bound but the file size (the store's disk is every merchant's).
    expect(statuses).toEqual([...Array(200).fill(201), 429]);
    expect((await bindTenant(api.deps.db, mm.merchant.tenant_database).selectFrom('contents').select('id').execute()).length).toBe(200);
    expect((await upload(png('elsewhere.png'), ownerOther)).status).toBe(201);
  });
});

describe('an object store that cannot be written (a read-only file system, a full disk)', () => {
  test('the upload is 503 `store_unavailable` and nothing is recorded (before: 500)', async () => {
    // A regular file where the store's directory should be: every write under it fails.
    const blocker = `/tmp/objects-blocked-${crypto.randomUUID()}`;
    await Bun.write(blocker, 'not a directory');
    const ro = await createTestApi({ env: { OBJECT_STORE_DIR: `${blocker}/objects` } });
    try {
      const mm = await ro.seed('contents-ro');
      const token = await ro.ownerToken(mm);
      const f = new FormData();
      f.append('file', new File([PNG], 'menu.png', { type: 'image/png' }));
      const res = await ro.app.handle(new Request('http://localhost/api/back-office/contents', { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: f }));
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 503, body: { message: 'The file store is not available. Try again later.', reason: 'store_unavailable' } });
      expect(await bindTenant(ro.deps.db, mm.merchant.tenant_database).selectFrom('contents').select('id').execute()).toEqual([]);
    } finally {
      await ro.close();
    }
  });
});
