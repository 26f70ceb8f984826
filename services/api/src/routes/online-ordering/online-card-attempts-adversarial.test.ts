import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startPlatformASimulator, type PlatformASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Card testing through a guest checkout: a declined platform-a card leaves the order open for another
// (`POST /online-ordering/payment/process`). Driven in process (no socket), so each request's client
// address is the one the test names.
let platformA: PlatformASimulator;
let api: TestApi;
let a: DemoSeedResult;
const CREDS = { PLATFORM_A_ACCESS_TOKEN: 'pa-card-attempts-token' };

beforeAll(async () => {
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, PLATFORM_A_BASE_URL: platformA.url } });
  a = await api.seed('card-attempts');
  await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-1' } }) }).where('id', '=', loc()).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
  await platformA.stop();
});

const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const loc = () => a.locations[0]!.id;
const run = Math.floor(Math.random() * 250);
const order = async (ip: string) => {
  const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc()}/payment`, { ip, body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] } });
  expect(r.body.data).toMatchObject({ provider: 'platform-a' });
  return r.body.data.transaction_id as string;
};
const process = (id: string, source_id: string, ip: string) =>
  api.call('POST', '/api/online-ordering/payment/process', { ip, body: { slug: a.merchant.slug, location_id: loc(), transaction_id: id, source_id } });
const status = async (id: string) => (await tdb().selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const tooMany = { status: 429, body: { message: 'Too Many Attempts.' } };

describe('platform-a card attempts are bounded', () => {
  test('10 an hour per order, whatever the client address; the eleventh card is not sent', async () => {
    const one = await order(`10.${run}.1.250`);
    // Before: every new card went to the provider, without end.
    for (let i = 0; i < 10; i++) expect((await process(one, 'cnon:card-nonce-declined', `10.${run}.1.${i}`)).body).toMatchObject({ reason: 'card_declined' });
    expect(await process(one, 'cnon:card-nonce-ok', `10.${run}.1.200`)).toMatchObject(tooMany);
    expect(platformA.paymentsFor(one)).toEqual([]);
    expect(await status(one)).toBe('Awaiting Payment');
  });

  test('30 per 10 minutes per client address over several orders; another address pays; a paid order answers without counting', async () => {
    const from = `10.${run}.2.1`;
    const ids = [await order(`10.${run}.2.201`), await order(`10.${run}.2.202`), await order(`10.${run}.2.203`), await order(`10.${run}.2.204`)];
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await process(ids[Math.floor(i / 9)]!, 'cnon:card-nonce-declined', from)).status);
    expect(statuses).toEqual(Array(30).fill(422));
    expect(await process(ids[3]!, 'cnon:card-nonce-ok', from)).toMatchObject(tooMany);
    expect((await process(ids[3]!, 'cnon:card-nonce-ok', `10.${run}.2.2`)).body.data).toMatchObject({ transaction_id: ids[3], status: 'Complete' });
    expect(platformA.paymentsFor(ids[3]!)).toHaveLength(1);
    // The double submit from the throttled address: answered from the paid order, nothing sent.
    expect((await process(ids[3]!, 'cnon:card-nonce-ok', from)).body.data).toMatchObject({ status: 'Complete' });
    expect(platformA.paymentsFor(ids[3]!)).toHaveLength(1);
  });
});
