import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { GENERATION_NOT_CONFIGURED, GENERATION_UNAVAILABLE } from '@pos/core/generation/ai-photos';
import { NOT_ENOUGH_CREDITS } from '@pos/core/generation/ai-credits';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { DESCRIPTION_PATH, generationTestbed, PHOTO_PATH, type GenerationTestbed } from './ai-generation.test-support.ts';

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
const setCredits = (m: DemoSeedResult, n: number) => tdbOf(m).updateTable('ai_credits').set({ balance: n }).where('id', '=', 1).execute();
const photoCount = async (m: DemoSeedResult, status?: string) => {
  let q = tdbOf(m).selectFrom('ai_photos').select((eb) => eb.fn.countAll<string>().as('n'));
  if (status) q = q.where('status', '=', status as 'completed');
  return Number((await q.executeTakeFirstOrThrow()).n);
};
const setDown = (down: boolean) => fetch(`${sim.url}/_sim/down`, { method: 'POST', body: JSON.stringify({ down }) });

beforeAll(async () => {
  t = await generationTestbed('test-generation-key', 'gen');
  ({ api, a, b, owner, ownerB, sim } = t);
}, 60_000);
afterAll(() => t.close());

describe('description generator', () => {
  test('answers the provider\'s description for the item, free of credits', async () => {
    const r = await api.call('POST', D, { token: owner, body: { name: ' Margherita ', keywords: ['tomato', 'basil'], language: 'fr', tone: 'formal' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { description: '[fr/formal] Margherita — tomato, basil. Freshly prepared and full of flavour.' } });
    expect(sim.requests.at(-1)).toEqual({ kind: 'description', body: { name: 'Margherita', keywords: ['tomato', 'basil'], language: 'fr', tone: 'formal' } });
    expect((await api.call('GET', `${P}/credits`, { token: owner })).body).toEqual({ data: { balance: 0 } });
  });

  test('bad input is a 422, no token a 401, provider down a 503', async () => {
    const sent = sim.requests.length;
    expect((await api.call('POST', D, { token: owner, body: { name: '   ' } })).status).toBe(422);
    expect((await api.call('POST', D, { token: owner, body: { name: 'x', tone: 'angry' } })).status).toBe(422);
    expect((await api.call('POST', D, { body: { name: 'x' } })).status).toBe(401);
    expect(sim.requests.length).toBe(sent);
    await setDown(true);
    const down = await api.call('POST', D, { token: owner, body: { name: 'Soup' } });
    await setDown(false);
    expect(down.status).toBe(503);
    expect(down.body.message).toBe(GENERATION_UNAVAILABLE);
  });
});

describe('ai photo', () => {
  test('with no credits: 422 and nothing generated', async () => {
    await setCredits(a, 0);
    const r = await api.call('POST', `${P}/generate`, { token: owner, body: { prompt: 'a pizza' } });
    expect(r.status).toBe(422);
    expect(r.body.message).toBe(NOT_ENOUGH_CREDITS);
    expect(await photoCount(a)).toBe(0);
  });

  test('generates a real PNG, takes one credit, and the status polls it; another merchant gets a 404', async () => {
    await setCredits(a, 3);
    const r = await api.call('POST', `${P}/generate`, { token: owner, body: { prompt: 'a margherita pizza on a wooden table' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'completed', prompt: 'a margherita pizza on a wooden table', mime_type: 'image/png', credits: 2 });
    const png = Buffer.from(r.body.data.image.replace('data:image/png;base64,', ''), 'base64');
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.readUInt32BE(16)).toBe(16); // IHDR width
    expect((await api.call('GET', `${P}/credits`, { token: owner })).body).toEqual({ data: { balance: 2 } });
    const id = r.body.data.content_id;
    const st = await api.call('GET', `${P}/status/${id}`, { token: owner });
    expect(st.status).toBe(200);
    const { credits: _c, ...photo } = r.body.data;
    expect(st.body).toEqual({ data: photo });
    expect((await api.call('GET', `${P}/status/${id}`, { token: ownerB })).status).toBe(404);
    expect((await api.call('GET', `${P}/status/not-a-uuid`, { token: owner })).status).toBe(404);
  });

  test('a provider failure gives the credit back and leaves a failed record', async () => {
    await setCredits(a, 1);
    await setDown(true);
    const r = await api.call('POST', `${P}/generate`, { token: owner, body: { prompt: 'soup' } });
    await setDown(false);
    expect(r.status).toBe(503);
    expect(r.body.message).toBe(GENERATION_UNAVAILABLE);
    expect((await api.call('GET', `${P}/credits`, { token: owner })).body.data.balance).toBe(1);
    expect(await photoCount(a, 'failed')).toBe(1);
  });

  test('20 concurrent requests with 5 credits: exactly 5 succeed, the balance ends at 0', async () => {
    await setCredits(b, 5);
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => api.call('POST', `${P}/generate`, { token: ownerB, body: { prompt: `dish ${i}` } })));
    expect(rs.filter((r) => r.status === 200).length).toBe(5);
    expect(rs.filter((r) => r.status === 422).length).toBe(15);
    expect((await tdbOf(b).selectFrom('ai_credits').select('balance').executeTakeFirstOrThrow()).balance).toBe(0);
    expect(await photoCount(b, 'completed')).toBe(5);
    expect(await photoCount(b)).toBe(5);
  });

  test('credit packages on offer, as select options (prices in cents, the label in EUR)', async () => {
    const r = await api.call('GET', `${P}/credits-package-options`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([
      { value: 'small', label: '10 credits — 5.00 EUR', credits: 10, price: 500, currency: 'EUR' },
      { value: 'medium', label: '50 credits — 20.00 EUR', credits: 50, price: 2000, currency: 'EUR' },
      { value: 'large', label: '200 credits — 60.00 EUR', credits: 200, price: 6000, currency: 'EUR' },
    ]);
  });
});

describe('not configured', () => {
  test('without a provider both routes answer 503 and no credit is taken', async () => {
    const bare = await createTestApi({});
    try {
      const m = await bare.seed('gen-none');
      const tok = await bare.ownerToken(m);
      await bindTenant(bare.deps.db, m.merchant.tenant_database).updateTable('ai_credits').set({ balance: 2 }).where('id', '=', 1).execute();
      const d = await bare.call('POST', D, { token: tok, body: { name: 'Soup' } });
      expect(d.status).toBe(503);
      expect(d.body.message).toBe(GENERATION_NOT_CONFIGURED);
      expect((await bare.call('POST', `${P}/generate`, { token: tok, body: { prompt: 'soup' } })).status).toBe(503);
      expect((await bare.call('GET', `${P}/credits`, { token: tok })).body.data.balance).toBe(2);
    } finally {
      await bare.close();
    }
  }, 60_000);
});
