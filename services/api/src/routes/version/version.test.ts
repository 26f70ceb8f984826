import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, mkdirSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

const HASH = 'a'.repeat(40);
let repo: string;
let api: TestApi;
beforeAll(async () => {
  repo = mkdtempSync(join(tmpdir(), 'version-route-'));
  mkdirSync(join(repo, '.git', 'refs', 'heads'), { recursive: true });
  writeFileSync(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(repo, '.git', 'refs', 'heads', 'main'), HASH + '\n');
  api = await createTestApi({ repoDir: repo });
});
afterAll(() => api.close());

describe('GET /version (address root)', () => {
  test('answers the git metadata with no auth and no /api prefix', async () => {
    const r = await api.call('GET', '/version');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ app: 'ordering-platform-api', commit: HASH, short: 'aaaaaaa', branch: 'main', environment: 'test' });
    expect(typeof r.body.deployed_at).toBe('string');
  });

  test('the commit file wins over git and deployed_at is its mtime', async () => {
    const file = join(repo, 'REVISION');
    writeFileSync(file, `${'b'.repeat(40)}\nrelease\n`);
    const when = new Date('2026-11-01T10:00:00Z');
    utimesSync(file, when, when);
    const r = await api.call('GET', '/version');
    expect(r.body).toEqual({ app: 'ordering-platform-api', commit: 'b'.repeat(40), short: 'bbbbbbb', branch: 'release', environment: 'test', deployed_at: '2026-11-01T10:00:00.000Z' });
  });

  test('never fails: a query it does not read (a NUL, a prototype name, a huge value) is no 4xx', async () => {
    for (const q of ['x=%00', 'constructor=1&__proto__=2', `x=${'y'.repeat(20_000)}`]) {
      const r = await api.call('GET', `/version?${q}`);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ app: 'ordering-platform-api', environment: 'test' });
    }
  });

  test('is not under /api', async () => {
    expect((await api.call('GET', '/api/version')).status).toBe(404);
  });
});

describe('GET /version: commit is a full hash or unknown, deployed_at ISO 8601 or null (spec 1 "Version record")', () => {
  const extra: TestApi[] = [];
  afterAll(async () => {
    for (const a of extra) await a.close();
  });

  test('an APP_VERSION that is no commit hash is not echoed, nor a DEPLOYED_AT that is no timestamp', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'version-env-'));
    const a = await createTestApi({ repoDir: dir, env: { APP_VERSION: ' release-2026.11 ', DEPLOYED_AT: 'last tuesday' } });
    extra.push(a);
    const r = await a.call('GET', '/version');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ app: 'ordering-platform-api', commit: 'unknown', short: 'unknown', branch: 'unknown', environment: 'test', deployed_at: null });
  });

  test('an abbreviated hash in the commit file is not reported as the commit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'version-short-'));
    writeFileSync(join(dir, 'REVISION'), 'abcdef1\nmain\n');
    mkdirSync(join(dir, '.git'), { recursive: true });
    const a = await createTestApi({ repoDir: dir });
    extra.push(a);
    const r = await a.call('GET', '/version');
    expect(r.body).toEqual({ app: 'ordering-platform-api', commit: 'unknown', short: 'unknown', branch: 'unknown', environment: 'test', deployed_at: null });
  });
});
