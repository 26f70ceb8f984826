import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let cardA: CardASimulator;
let api: TestApi;
let server: { stop(): unknown };
let a: DemoSeedResult;
let owner: string;
const SECRET = 'whsec_online_edges';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_online_edges' };

beforeAll(async () => {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') });
  const port = probe.port;
  await probe.stop(true);
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookUrl: `http://127.0.0.1:${port}/api/card-a-webhook/BE`, webhookSecret: SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_A_WEBHOOK_SECRET: SECRET } });
  server = api.app.listen({ port, hostname: '127.0.0.1' });
  a = await api.seed('online-edges');
  owner = await api.ownerToken(a);
}, 60_000);
afterAll(async () => {
  await cardA.idle();
  await server.stop();
  await api.close();
  await cardA.stop();
});

const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const line = () => ({ item_id: a.items[0]!.id, qty: 1 });
const pay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body });
const verify = (transaction_id: string) => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/verify-payment`, { body: { transaction_id } });
const row = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await Bun.sleep(50);
  }
}

describe('online payment: dates, slot capacity, verification', () => {
  // Spec 1 section 7: 422 for invalid input; 500 only for an unhandled exception.
  test('a scheduled_for at the ends of the date range is no slot: 422 on scheduled_for, nothing stored', async () => {
    const before = await tdb().selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    for (const v of ['+275760-09-13T00:00:00Z', '+275760-09-12T23:59:59Z', '-271821-04-20T00:00:00Z', '2100-01-01T12:00:00Z']) {
      expect(await pay({ lines: [line()], scheduled_for: v })).toMatchObject({ status: 422, body: { errors: { scheduled_for: ['The chosen timeslot is not available.'] } } });
    }
    expect(await tdb().selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
  });

  test('slot capacity 1: an order being paid holds the slot; a second one for it, or two at once, gets one place', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 1 } });
    const timeslots = async (date: string) => (await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, { body: { date } })).body.data.slots as { start: string; remaining: number }[];
    const full = { status: 422, body: { errors: { scheduled_for: ['The chosen timeslot is not available.'] } } };
    try {
      const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const slots = await timeslots(tomorrow);
      const slot = slots.at(-3)!;
      expect(slot.remaining).toBe(1);
      const r1 = await pay({ lines: [line()], scheduled_for: slot.start });
      expect(r1.status).toBe(200);
      // Held while it is paid: the slot is full for the next customer.
      expect((await timeslots(tomorrow)).find((x) => x.start === slot.start)).toBeUndefined();
      expect(await pay({ lines: [line()], scheduled_for: slot.start })).toMatchObject(full);
      await cardA.confirmIntent(r1.body.data.payment.id, r1.body.data.payment.client_secret);
      await cardA.idle();
      const d1 = await until(() => row(r1.body.data.transaction_id), (x) => x.status === 'Complete');
      expect(d1.capacity_slot_at?.toISOString()).toBe(slot.start);
      expect(await pay({ lines: [line()], scheduled_for: slot.start })).toMatchObject(full);

      // Two customers at once for another slot's last place: one gets it.
      const other = slots.at(-4)!;
      const both = await Promise.all([pay({ lines: [line()], scheduled_for: other.start }), pay({ lines: [line()], scheduled_for: other.start })]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(both.find((r) => r.status === 422)).toMatchObject(full);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 0 } });
    }
  });

  test('five concurrent verifies of a paid intent (webhook lost) capture once: one receipt number for all answers, no 5xx', async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    (cardA.intent(r.body.data.payment.id)! as { status: string }).status = 'succeeded';
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => verify(id)));
    const done = await until(() => row(id), (x) => x.status === 'Complete');
    expect(done.status).toBe('Complete');
    expect(answers.map((x) => [x.status, x.body.data.status, x.body.data.receipt_no])).toEqual(answers.map(() => [200, 'Complete', done.receipt_no]));
  });

  test('a paid order is verified (and captured) after the location stopped taking online orders', async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    (cardA.intent(r.body.data.payment.id)! as { status: string }).status = 'succeeded';
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { enabled: false } });
    try {
      const v = await verify(id);
      expect(v.status).toBe(200);
      expect(v.body.data.status).toBe('Complete');
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { enabled: true } });
    }
  });
});
