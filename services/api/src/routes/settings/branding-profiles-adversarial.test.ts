import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over branding profiles (spec 1 "Settings"). */
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings/branding-profiles';
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
const tdbA = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const profiles = () => tdbA().selectFrom('branding_profiles').selectAll().orderBy('id').execute();

/** A real upload through POST /contents, as the back office makes a logo. */
async function upload(name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new File([PNG], name, { type: 'image/png' }));
  const res = await api.app.handle(new Request('http://localhost/api/back-office/contents', { method: 'POST', headers: { authorization: `Bearer ${owner}` }, body: form }));
  if (res.status !== 201) throw new Error(`upload failed: ${res.status}`);
  return ((await res.json()) as { data: { id: string } }).data.id;
}
const deleteContent = (id: string) => api.call('DELETE', '/api/back-office/contents', { token: owner, body: { ids: [id] } });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('brand-adv-a');
  b = await api.seed('brand-adv-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('branding profiles, adversarial', () => {
  test('a logo deleted at the moment a profile takes it: 200 with the logo cleared, or 404 for the content; never a 500 (it was one on the foreign key)', async () => {
    const main = (await api.call('POST', P, { token: owner, body: { name: 'Main' } })).body.data.id as string;
    for (let round = 0; round < 8; round++) {
      const logo = await upload(`race-${round}.png`);
      const [u, d] = await Promise.all([
        api.call('PUT', `${P}/${main}`, { token: owner, body: { logo_content_id: logo } }),
        Bun.sleep(round % 3).then(() => deleteContent(logo)),
      ]);
      expect(d).toMatchObject({ status: 200, body: { status: 'success', deleted: 1 } });
      if (u.status === 200) expect((await api.call('GET', `${P}/${main}`, { token: owner })).body.data.logo_content_id).toBeNull();
      else expect(u).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    }
    for (let round = 0; round < 8; round++) {
      const logo = await upload(`race-new-${round}.png`);
      const before = (await profiles()).length;
      const [c, d] = await Promise.all([
        api.call('POST', P, { token: owner, body: { name: `New ${round}`, logo_content_id: logo } }),
        Bun.sleep(round % 3).then(() => deleteContent(logo)),
      ]);
      expect(d.status).toBe(200);
      if (c.status === 201) expect((await api.call('GET', `${P}/${c.body.data.id}`, { token: owner })).body.data.logo_content_id).toBeNull();
      else {
        expect(c).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
        expect((await profiles()).length).toBe(before);
      }
    }
  });

  test('another merchant\'s profile or logo is a 404; a member without the permission is a 403; bad colours and fonts 422; nothing written', async () => {
    const mine = (await api.call('POST', P, { token: owner, body: { name: 'Mine' } })).body.data.id as string;
    const logo = await upload('mine.png');
    const before = await profiles();
    expect(await api.call('PUT', `${P}/${mine}`, { token: ownerB, body: { primary_color: '#000000' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the branding profile you requested.' } });
    expect(await api.call('DELETE', `${P}/${mine}`, { token: ownerB })).toMatchObject({ status: 404 });
    expect(await api.call('POST', `${P}/set-default`, { token: ownerB, body: { id: mine } })).toMatchObject({ status: 404 });
    const bProfile = (await api.call('POST', P, { token: ownerB, body: { name: 'Theirs' } })).body.data.id as string;
    expect(await api.call('PUT', `${P}/${bProfile}`, { token: ownerB, body: { logo_content_id: logo } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    const viewer = await makeMember(api, a, ['VIEW_BRANDING_PROFILE']);
    expect(await api.call('PUT', `${P}/${mine}`, { token: viewer.token, body: { primary_color: '#000000' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    for (const [body, field] of [
      [{ primary_color: 'red' }, 'primary_color'],
      [{ text_color: '#12345' }, 'text_color'],
      [{ heading_font: 'Comic Sans' }, 'heading_font'],
      [{ body_font: '' }, 'body_font'],
      [{ logo_content_id: 'logo.png' }, 'logo_content_id'],
      [{ logo: logo }, 'logo'],
    ] as const) {
      const r = await api.call('PUT', `${P}/${mine}`, { token: owner, body });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect(await profiles()).toEqual(before);
  });
});
