import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from '../../testing/harness.ts';
import { DESCRIPTION_PATH, generationTestbed, PHOTO_PATH, type GenerationTestbed } from './ai-generation.test-support.ts';
import { makeMember } from '../team/team.test-support.ts';

/** AI generation as a hostile (or careless) user: the provider's cost, input size, another merchant's photos. */
let t: GenerationTestbed;
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let sim: GenerationTestbed['sim'];
const D = DESCRIPTION_PATH;
const P = PHOTO_PATH;
const tdbOf = (m: DemoSeedResult) => t.tdbOf(m);

beforeAll(async () => {
  t = await generationTestbed('adv-generation-key', 'gen-adv');
  ({ api, a, b, owner, ownerB, sim } = t);
}, 60_000);
afterAll(() => t.close());

describe('description generator: the provider is paid per call, so it is throttled', () => {
  test('20 a minute per user; the 21st is 429 with retry_after; another user of the merchant still has theirs', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await api.call('POST', D, { token: owner, body: { name: `Fries ${i}` } })).status);
    expect(statuses).toEqual([...Array(20).fill(200), 429]);
    const last = await api.call('POST', D, { token: owner, body: { name: 'Fries' } });
    expect(last).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.', retry_after: expect.any(Number) } });
    const member = await makeMember(api, a, []);
    expect((await api.call('POST', D, { token: member.token, body: { name: 'Waffle' } })).status).toBe(200);
  });

  test('concurrent bursts of one user: at most 20 reach the provider', async () => {
    const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => api.call('POST', D, { token: ownerB, body: { name: `Soup ${i}` } })));
    expect(burst.filter((r) => r.status === 200).length).toBe(20);
    expect(burst.filter((r) => r.status === 429).length).toBe(10);
  });

  test('oversized and malformed input is a 422 and does not use the allowance', async () => {
    const member = await makeMember(api, a, []);
    for (const body of [{ name: 'x'.repeat(121) }, { name: '   ' }, { name: 'Fries', keywords: Array(11).fill('k') }, { name: 'Fries', keywords: ['k'.repeat(41)] }, { name: 'Fries', language: 'english' }, { name: 'Fries', tone: 'angry' }, { name: 'Fries', extra: 1 }]) {
      expect((await api.call('POST', D, { token: member.token, body })).status).toBe(422);
    }
    const ok: number[] = [];
    for (let i = 0; i < 20; i++) ok.push((await api.call('POST', D, { token: member.token, body: { name: `Stew ${i}` } })).status);
    expect(ok).toEqual(Array(20).fill(200));
  });
});

describe('AI photos: a refusal gives the credit back, so the calls are throttled', () => {
  test('20 a minute per user, whatever the provider answers; the 21st is 429 and reaches no provider', async () => {
    const member = await makeMember(api, b, []);
    await tdbOf(b).updateTable('ai_credits').set({ balance: 1 }).where('id', '=', 1).execute();
    await fetch(`${sim.url}/_sim/down`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ down: true }) });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) statuses.push((await api.call('POST', `${P}/generate`, { token: member.token, body: { prompt: `refused ${i}` } })).status);
      // Before: 503 after 503 (and on and on), each a call on our key, the one credit given back each time.
      expect(statuses).toEqual([...Array(20).fill(503), 429]);
      const balance = await tdbOf(b).selectFrom('ai_credits').select('balance').where('id', '=', 1).executeTakeFirstOrThrow();
      expect(Number(balance.balance)).toBe(1);
    } finally {
      await fetch(`${sim.url}/_sim/down`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ down: false }) });
    }
  });
});

describe('AI photos', () => {
  test('another merchant\'s photo is a 404; a prompt over 500 characters is a 422 and costs no credit', async () => {
    await tdbOf(a).updateTable('ai_credits').set({ balance: 2 }).where('id', '=', 1).execute();
    const made = await api.call('POST', `${P}/generate`, { token: owner, body: { prompt: '<img src=x onerror=alert(1)> fries' } });
    expect(made.status).toBe(200);
    // Stored and answered as the text it is (JSON), never interpreted.
    expect(made.body.data.prompt).toBe('<img src=x onerror=alert(1)> fries');
    expect(await api.call('GET', `${P}/status/${made.body.data.content_id}`, { token: ownerB })).toMatchObject({ status: 404, body: { message: 'Unable to locate the content you requested.' } });
    expect((await api.call('GET', `${P}/status/${made.body.data.content_id}?vendor_id=${a.merchant.id}`, { token: ownerB })).status).toBe(403);
    expect((await api.call('POST', `${P}/generate`, { token: owner, body: { prompt: 'p'.repeat(501) } })).status).toBe(422);
    expect((await api.call('GET', `${P}/credits`, { token: owner })).body.data.balance).toBe(1);
  });
});
