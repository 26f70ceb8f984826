import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { RegisterAClient, RegisterAError, RegisterATokenError } from './register-a-client.ts';
import { AMOUNT_MESSAGE, OMM_LICENCE_MESSAGE, PAGE_SIZE_MESSAGE, startRegisterASimulator, type RegisterASimulator } from './register-a-simulator.ts';

// The client against the simulator over real HTTP: every spec 3 error row, pagination, money, dedup, lifecycles, webhooks.
let sim: RegisterASimulator;
let hook: ReturnType<typeof Bun.serve>;
const received: { body: string; signature: string | null }[] = [];
let failNext = 0;

beforeAll(() => {
  hook = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const body = await req.text();
      received.push({ body, signature: req.headers.get('x-register-a-signature') });
      if (failNext > 0) {
        failNext -= 1;
        return new Response('nope', { status: 500 });
      }
      return Response.json({ received: true });
    },
  });
  sim = startRegisterASimulator({ keys: { prod: 'prod-key', staging: 'staging-key' }, webhookUrl: `http://127.0.0.1:${hook.port}/hook`, webhookRetryMs: 20 });
});
afterAll(async () => {
  await sim.stop();
  await hook.stop(true);
});

const client = (token: string) => new RegisterAClient({ baseUrl: sim.url, token });

async function refusal(p: Promise<unknown>): Promise<RegisterAError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof RegisterAError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('register-a client and simulator', () => {
  test('authentication answers the token identity; a token of the wrong key is 401', async () => {
    const s = sim.setup();
    const c = client(s.token);
    const a = await c.authenticate();
    expect(a.applicationId).toBe(s.applicationId);
    expect(a.token).toBe(s.token);
    expect(c.claims.namespace).toBe('prod');
    // Signed with the staging key while claiming prod: refused.
    const forged = sim.issueToken({ ...c.claims, namespace: 'prod' }).split('.');
    const bad = `${forged[0]}.${forged[1]}.${createHmac('sha256', 'staging-key').update(`${forged[0]}.${forged[1]}`).digest('base64url')}`;
    const e = await refusal(client(bad).authenticate());
    expect(e.status).toBe(401);
  });

  test('claims are checked before a call: not a token, missing permission, resource not granted', async () => {
    expect(() => client('not-a-jwt')).toThrow(RegisterATokenError);
    const s = sim.setup({ permissions: ['store.*.orders.write'], resources: 'stores' });
    const c = client(s.token);
    expect(() => c.items(s.companyId)).toThrow(RegisterATokenError);
    const before = sim.ordersCreated;
    await expect(c.pushOrder(crypto.randomUUID(), { orderId: 'x', orderType: 'PICKUP', orderIsAlreadyPaid: true, lines: [], paid: 0 })).rejects.toThrow(/does not cover/);
    await expect(c.orders(s.storeIds[0]!)).rejects.toThrow(/lacks the permission store\.\*\.orders\.read/);
    // The store the token lists is covered.
    await c.pushOrder(s.storeIds[0]!, { orderId: 'x', orderType: 'PICKUP', orderIsAlreadyPaid: true, lines: [], paid: 0 });
    expect(sim.ordersCreated).toBe(before + 1);
  });

  test('stores: pages of 25 while hasNextPage; a page above 25 is the provider 400 verbatim', async () => {
    const s = sim.setup({ stores: 53 });
    const c = client(s.token);
    const asked = sim.storePageSizes.length;
    const all = await c.stores();
    expect(all.length).toBe(53);
    // Three pages, never more than 25 asked.
    expect(sim.storePageSizes.slice(asked)).toEqual([25, 25, 25]);
    expect(new Set(all.map((x) => x.id))).toEqual(new Set(s.storeIds));
    const e = await refusal(c.storesPage(1, 26));
    expect(e.status).toBe(400);
    expect(e.providerMessage).toBe(PAGE_SIZE_MESSAGE);
    const one = await c.store(s.storeIds[0]!);
    expect(one.id).toBe(s.storeIds[0]!);
    expect((one as any).subscriptions).toEqual([]);
    const org = await c.organisation(s.organisationId);
    expect(org.companies[0]!.stores.length).toBe(53);
  });

  test('items: created SIMPLE at major units, PUT writes only row fields (200), DELETE removes, structural routes 404', async () => {
    const s = sim.setup();
    const c = client(s.token);
    const item = await c.createItem(s.companyId, { name: 'Fries', price: 350, reference: 'F1' });
    expect(item.type).toBe('SIMPLE');
    expect(item.price).toBe(3.5);
    // Unsupported fields: 200, unchanged.
    const res = await fetch(`${sim.url}/v1/companies/${s.companyId}/items/${item.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'MENU', family: 'x', images: ['a'], price: 99, unknown: 1, description: 'Crispy' }),
    });
    expect(res.status).toBe(200);
    const after = sim.items(s.companyId)[0]!;
    expect(after.type).toBe('SIMPLE');
    expect(after.family).toBeNull();
    expect(after.price).toBe(3.5);
    expect(after.description).toBe('Crispy');
    const up = await c.updateItem(s.companyId, item.id, { name: 'Big fries', longDescription: 'Long' });
    expect(up.name).toBe('Big fries');
    const pl = await c.createPriceList(s.companyId, s.storeIds[0]!);
    await c.setItemPrice(s.companyId, pl.id, item.id, 420);
    expect((await c.items(s.companyId))[0]!.price).toBe(4.2);
    for (const [method, path] of [
      ['POST', `/v1/companies/${s.companyId}/modifiergroups`],
      ['PUT', `/v1/companies/${s.companyId}/modifier-groups/x`],
      ['POST', `/v1/companies/${s.companyId}/items/${item.id}/modifiergroups`],
      ['POST', `/v1/companies/${s.companyId}/families`],
      ['POST', `/v1/companies/${s.companyId}/menus`],
      ['POST', `/v1/companies/${s.companyId}/items/bulk`],
      ['POST', `/v1/companies/${s.companyId}/items/batch`],
      ['POST', `/v1/companies/${s.companyId}/items/import`],
      ['POST', `/v1/companies/${s.companyId}/catalog/import`],
      ['POST', `/v1/companies/${s.companyId}/catalog/import/upload`],
      ['POST', `/v1/companies/${s.companyId}/variations`],
      ['POST', `/v1/companies/${s.companyId}/product-variations`],
      ['POST', `/v1/companies/${s.companyId}/items/${item.id}/images`],
      ['POST', '/v1/webhooks'],
      ['POST', `/v1/stores/${s.storeIds[0]}/order-slots`],
    ] as const) {
      const r = await fetch(`${sim.url}${path}`, { method, headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' }, body: '{}' });
      expect(`${method} ${path} ${r.status}`).toBe(`${method} ${path} 404`);
    }
    await c.deleteItem(s.companyId, item.id);
    expect(await c.items(s.companyId)).toEqual([]);
  });

  test('modifier group: modifiers carry an empty name and the linked item id', async () => {
    const s = sim.setup();
    const c = client(s.token);
    const sauce = await c.createItem(s.companyId, { name: 'Mayo', price: 50 });
    const g = sim.addModifierGroup(s.companyId, { name: 'Sauces', modifiers: [{ itemId: sauce.id, price: 0.5 }] });
    const read = await c.modifierGroup(s.companyId, g.id);
    expect(read.modifiers[0]!.name).toBe('');
    expect(read.modifiers[0]!.item).toBe(sauce.id);
  });

  test('order push: major units, dedup by orderId, routed to the only POS', async () => {
    const s = sim.setup();
    const c = client(s.token);
    const input = { orderId: crypto.randomUUID(), orderType: 'PICKUP' as const, orderIsAlreadyPaid: true, lines: [{ name: 'Burger', quantity: 2, unitPrice: 1250, modifiers: [{ name: 'Cheese', price: 100 }] }], paid: 2800, tip: 100 };
    const o1 = await c.pushOrder(s.storeIds[0]!, input);
    const o2 = await c.pushOrder(s.storeIds[0]!, input);
    expect(o2.id).toBe(o1.id);
    expect(o1.total).toBe(28);
    expect(sim.orders(s.storeIds[0]!).length).toBe(1);
    const stored = sim.orders(s.storeIds[0]!)[0]!;
    expect(stored.posId).toBe(sim.store(s.storeIds[0]!)!.pos[0]!.id);
    expect((stored.body.items as any[])[0].price).toBe(12.5);
    expect((stored.body.payments as any[])[0].amount).toBe(28);
    expect(stored.status).toBe('not_acked');
  });

  test('order push: a cents body mixed with major units is `Payment amount < total price`', async () => {
    const s = sim.setup();
    const r = await fetch(`${sim.url}/v1/stores/${s.storeIds[0]}/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 'cents-1', orderType: 'PICKUP', items: [{ name: 'Burger', quantity: 1, price: 1250 }], payments: [{ amount: 12.5 }] }),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).message).toBe(AMOUNT_MESSAGE);
    expect(sim.orders(s.storeIds[0]!)).toEqual([]);
  });

  test('order push without an Order Management Module licence: 401 forwarded verbatim', async () => {
    const s = sim.setup({ ommLicence: false });
    const e = await refusal(client(s.token).pushOrder(s.storeIds[0]!, { orderId: 'o', orderType: 'EAT_IN', orderIsAlreadyPaid: true, lines: [], paid: 0 }));
    expect(e.status).toBe(401);
    expect(e.providerMessage).toBe(OMM_LICENCE_MESSAGE);
  });

  test('kitchen and fiscal lifecycles, /orders default filter, /sales, /shifts, DELETE only in not_acked', async () => {
    const s = sim.setup();
    const store = s.storeIds[0]!;
    const c = client(s.token);
    const shift = sim.openShift(store);
    const o = await c.pushOrder(store, { orderId: 'life-1', orderType: 'EAT_IN', orderIsAlreadyPaid: true, lines: [{ name: 'Soup', quantity: 1, unitPrice: 600 }], paid: 600 });
    const t = await c.pushOrder(store, { orderId: 'test-1', orderType: 'EAT_IN', testOrder: true, orderIsAlreadyPaid: true, lines: [], paid: 0 });
    sim.ingest(store);
    expect(sim.orders(store).find((x) => x.orderId === 'life-1')!.status).toBe('auto_accepted_waiting');
    sim.tap('life-1');
    // Fiscal lifecycle is independent: a sale while the kitchen is `accepted`.
    expect(o.payment.receipt).toBeNull();
    sim.process('life-1');
    expect((await c.sales(store)).map((x) => [x.orderId, x.total, x.shiftId])).toEqual([['life-1', 6, shift.id]]);
    expect(() => sim.process('test-1')).toThrow('A test order cannot be finalised');
    for (let i = 0; i < 4; i++) sim.tap('life-1');
    expect(sim.orders(store).find((x) => x.orderId === 'life-1')!.status).toBe('done');
    expect((await c.orders(store)).map((x) => x.orderId)).toEqual(['test-1']);
    expect((await c.orders(store, 'done')).map((x) => x.orderId)).toEqual(['life-1']);
    const del = await refusal(c.deleteOrder(store, 'life-1'));
    expect(del.status).toBe(409);
    void t;
    sim.closeShift(store, true);
    expect((await c.shifts(store)).map((x) => x.state)).toEqual(['COMPLETED']);
    const n = await c.pushOrder(store, { orderId: 'gone', orderType: 'PICKUP', orderIsAlreadyPaid: true, lines: [], paid: 0 });
    await c.deleteOrder(store, n.orderId);
    expect(sim.orders(store).some((x) => x.orderId === 'gone')).toBe(false);
  });

  test('orders stall in not_acked in discovery mode and from staging credentials', async () => {
    const d = sim.setup({ discoveryMode: true });
    await client(d.token).pushOrder(d.storeIds[0]!, { orderId: 'disc', orderType: 'PICKUP', orderIsAlreadyPaid: true, lines: [], paid: 0 });
    sim.ingest(d.storeIds[0]!);
    expect(sim.orders(d.storeIds[0]!)[0]!.status).toBe('not_acked');
    const st = sim.setup({ namespace: 'staging' });
    await client(st.token).pushOrder(st.storeIds[0]!, { orderId: 'stg', orderType: 'PICKUP', orderIsAlreadyPaid: true, lines: [], paid: 0 });
    sim.ingest(st.storeIds[0]!);
    expect(sim.orders(st.storeIds[0]!)[0]!.status).toBe('not_acked');
  });

  test('webhooks: {event, resource, content[]} signed with the applicationId, retried up to 5 attempts', async () => {
    const s = sim.setup();
    const before = sim.webhooks.length;
    failNext = 10;
    await client(s.token).createItem(s.companyId, { name: 'Tea', price: 200 });
    const d = sim.webhooks[before]!;
    const deadline = Date.now() + 3000;
    while (d.attempts < 5 && Date.now() < deadline) await Bun.sleep(20);
    await Bun.sleep(100);
    expect(d.attempts).toBe(5);
    expect(d.delivered).toBe(false);
    failNext = 0;
    const body = JSON.parse(d.body);
    expect(body.event).toBe('company.items');
    expect(body.resource).toBe(`company.${s.companyId}`);
    expect(body.content[0].name).toBe('Tea');
    const got = received.filter((r) => r.body === d.body);
    expect(got.length).toBe(5);
    expect(got[0]!.signature).toBe(createHmac('sha256', s.applicationId).update(d.body).digest('hex'));
  });
});

describe('register-a simulator process', () => {
  test('starts from its environment, answers /_sim/setup with a token the client accepts', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const p = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`], {
      env: { PATH: process.env.PATH ?? '', REGISTER_A_SIM_PORT: String(port), REGISTER_A_SIM_PROD_KEY: 'proc-prod', REGISTER_A_SIM_STAGING_KEY: 'proc-staging' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    try {
      let up = false;
      for (let i = 0; i < 100 && !up; i++) {
        up = await fetch(`http://127.0.0.1:${port}/_sim/ping`).then((r) => r.ok, () => false);
        if (!up) await Bun.sleep(50);
      }
      expect(up).toBe(true);
      const s = (await (await fetch(`http://127.0.0.1:${port}/_sim/setup`, { method: 'POST', body: '{}' })).json()) as SimSetupJson;
      const c = new RegisterAClient({ baseUrl: `http://127.0.0.1:${port}`, token: s.token });
      expect((await c.authenticate()).applicationId).toBe(s.applicationId);
      expect((await c.stores()).map((x) => x.id)).toEqual(s.storeIds);
    } finally {
      p.kill();
      await p.exited;
    }
  });
});
interface SimSetupJson {
  token: string;
  applicationId: string;
  storeIds: string[];
}
