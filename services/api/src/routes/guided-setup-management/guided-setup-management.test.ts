import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let a: DemoSeedResult;
let admin: string;
let owner: string;
const P = '/api/back-office/guided-setup-management';
const rows = async () => api.deps.db.selectFrom('guided_setup_videos').selectAll().execute();

beforeAll(async () => {
  api = await createTestApi({});
  a = await api.seed('gsm-a');
  const b = await api.seed('gsm-b');
  await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('email', '=', a.backoffice.email).execute();
  admin = await api.ownerToken(a);
  owner = await api.ownerToken(b);
}, 60_000);
beforeEach(async () => {
  await api.deps.db.deleteFrom('guided_setup_videos').execute();
});
afterAll(async () => {
  await api.close();
});

describe('guided setup management', () => {
  test('a global admin creates, updates, reads, lists and deletes a task video', async () => {
    const created = await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'menu', title: ' Publish your menu ', video_url: 'https://videos.example/menu-1' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ data: { task_id: 'menu', title: 'Publish your menu', video_url: 'https://videos.example/menu-1', updated_at: expect.any(String) } });
    const updated = await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'menu', title: 'Menus', video_url: 'https://videos.example/menu-2' } });
    expect(updated.body.data).toMatchObject({ task_id: 'menu', title: 'Menus', video_url: 'https://videos.example/menu-2' });
    expect(await rows()).toHaveLength(1);
    expect((await api.call('GET', `${P}/video/menu`, { token: admin })).body.data).toEqual(updated.body.data);
    const tasks = await api.call('GET', `${P}/tasks`, { token: admin });
    expect(tasks.status).toBe(200);
    expect(tasks.body.data.map((t: { task_id: string }) => t.task_id)).toEqual(['location', 'catalog', 'menu', 'payments', 'device', 'branding', 'language']);
    expect(tasks.body.data[2]).toEqual({ task_id: 'menu', label: 'Publish a menu', video: updated.body.data });
    expect(tasks.body.data[0].video).toBeNull();
    const del = await api.call('DELETE', `${P}/video/menu`, { token: admin });
    expect(del.body).toEqual({ status: 'success' });
    expect(await rows()).toHaveLength(0);
    expect((await api.call('DELETE', `${P}/video/menu`, { token: admin })).status).toBe(404);
    expect((await api.call('GET', `${P}/video/menu`, { token: admin })).status).toBe(404);
  });

  test('any signed-in back-office user reads a task video by url; none is a 404', async () => {
    await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'device', title: 'Activate', video_url: 'https://videos.example/device' } });
    const r = await api.call('GET', `${P}/video/url?task_id=device`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ task_id: 'device', video_url: 'https://videos.example/device' });
    expect((await api.call('GET', `${P}/video/url?task_id=menu`, { token: owner })).status).toBe(404);
    expect((await api.call('GET', `${P}/video/url?task_id=device`, {})).status).toBe(401);
  });

  test('management is global-admin only: 403 for a merchant owner, nothing written', async () => {
    expect((await api.call('GET', `${P}/tasks`, { token: owner })).status).toBe(403);
    expect((await api.call('POST', `${P}/video`, { token: owner, body: { task_id: 'menu', title: 'x', video_url: 'https://v.example/x' } })).status).toBe(403);
    expect((await api.call('GET', `${P}/video/menu`, { token: owner })).status).toBe(403);
    expect((await api.call('DELETE', `${P}/video/menu`, { token: owner })).status).toBe(403);
    expect(await rows()).toHaveLength(0);
  });

  test('bad input is a 422 with nothing written', async () => {
    const unknown = await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'nope', title: 'x', video_url: 'https://v.example/x' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ task_id: ['The selected task id is invalid.'] });
    expect((await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'menu', title: 'x', video_url: 'http://v.example/x' } })).status).toBe(422);
    expect((await api.call('POST', `${P}/video`, { token: admin, body: { task_id: 'menu', title: '  ', video_url: 'https://v.example/x' } })).status).toBe(422);
    expect(await rows()).toHaveLength(0);
  });
});
