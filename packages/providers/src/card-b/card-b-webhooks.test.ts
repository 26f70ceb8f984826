import { afterEach, describe, expect, test } from 'bun:test';
import { CardBClient } from './card-b-client.ts';
import { CARD_B_WEBHOOK_ATTEMPTS, startCardBSimulator, type CardBSimulator } from './card-b-simulator.ts';

// PROTOCOLS.md "card-b": the provider verifies the webhook URL (GET, `{"Key": …}`) before it sends
// events there, and sends an event answered non-2xx again, hourly (compressed here).
const KEY = 'merchant-key-123';

interface Receiver {
  readonly url: string;
  readonly gets: number;
  readonly posts: string[];
  stop(): Promise<void>;
}

/** A merchant endpoint: `handshake` answers the GET, `answer(n)` the n-th POST (from 1). */
function receiver(handshake: () => Response, answer: (n: number) => number = () => 200): Receiver {
  let gets = 0;
  const posts: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      if (req.method === 'GET') return (gets++, handshake());
      posts.push(await req.text());
      return new Response(null, { status: answer(posts.length) });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/api/card-b-webhook/BE/1796`,
    get gets() {
      return gets;
    },
    posts,
    stop: () => server.stop(true),
  };
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await Bun.sleep(10);
  }
}

const running: (CardBSimulator | Receiver)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((x) => x.stop()));
});

function start(rx: Receiver, retryMs: number): { sim: CardBSimulator; client: CardBClient } {
  const sim = startCardBSimulator({ clientId: 'wid', clientSecret: 'wsecret', webhookUrl: rx.url, webhookKey: KEY, webhookRetryMs: retryMs });
  running.push(sim, rx);
  return { sim, client: new CardBClient({ baseUrl: sim.url, clientId: 'wid', clientSecret: 'wsecret' }) };
}

async function paid(sim: CardBSimulator, client: CardBClient, sessionId: string): Promise<void> {
  await client.startSale({ sessionId, terminalId: `T-${sessionId}`, cashRegisterId: 'R', amount: 1250, currencyCode: '978', merchantReference: 'loc-1:1', customerTrns: 'Order 1' });
  await sim.complete(sessionId);
}

describe('card-b simulator webhooks', () => {
  test('an event answered 500 is sent again with the same body after the retry interval; the 200 ends it; the URL is verified once', async () => {
    const rx = receiver(() => Response.json({ Key: KEY }), (n) => (n === 1 ? 500 : 200));
    const { sim, client } = start(rx, 50);
    await paid(sim, client, 'r-1');
    const d = sim.webhooks.at(-1)!;
    expect([d.attempts, d.delivered, d.result, rx.posts.length]).toEqual([1, false, { status: 500 }, 1]);
    await until(() => sim.webhooks.at(-1)!.delivered);
    expect(rx.posts[1]).toBe(rx.posts[0]!);
    expect(JSON.parse(rx.posts[0]!)).toMatchObject({ EventTypeId: 1796, EventData: { Amount: 12.5, StatusId: 'F', MerchantTrns: 'loc-1:1' } });
    expect(sim.webhooks.at(-1)).toEqual({ body: JSON.parse(rx.posts[0]!), url: rx.url, attempts: 2, delivered: true, result: { status: 200 } });
    await Bun.sleep(200);
    expect(rx.posts).toHaveLength(2);
    // A second event goes out at once: the URL stays verified.
    await paid(sim, client, 'r-2');
    expect([rx.posts.length, rx.gets]).toEqual([3, 1]);
    expect(sim.webhookVerification).toEqual({ url: rx.url, verified: true, reason: null });
  });

  test(`an event never answered 2xx is attempted ${CARD_B_WEBHOOK_ATTEMPTS} times (the first and card-b's 72 retries), then no more`, async () => {
    const rx = receiver(() => Response.json({ Key: KEY }), () => 503);
    const { sim, client } = start(rx, 2);
    await paid(sim, client, 'r-3');
    await until(() => sim.webhooks.at(-1)!.attempts === CARD_B_WEBHOOK_ATTEMPTS, 10_000);
    await Bun.sleep(100);
    expect(rx.posts).toHaveLength(73);
    expect(new Set(rx.posts).size).toBe(1);
    expect(sim.webhooks.at(-1)).toMatchObject({ attempts: 73, delivered: false, result: { status: 503 } });
  });

  test('a URL answering the handshake with another key gets no events, and the refusal is visible', async () => {
    const rx = receiver(() => Response.json({ Key: 'someone-elses-key' }));
    const { sim, client } = start(rx, 20);
    await paid(sim, client, 'r-4');
    await Bun.sleep(100);
    expect([rx.gets, rx.posts.length]).toEqual([1, 0]);
    const refused = { url: rx.url, attempts: 0, delivered: false, result: { error: 'webhook URL not verified: answered another key' } };
    expect(sim.webhooks.at(-1)).toMatchObject(refused);
    expect(sim.webhookVerification).toEqual({ url: rx.url, verified: false, reason: 'answered another key' });
    const res = await fetch(`${sim.url}/_sim/webhooks`);
    expect(await res.json()).toMatchObject({ url: rx.url, verification: { url: rx.url, verified: false, reason: 'answered another key' }, deliveries: [refused] });
    // The next event asks again (the merchant may have fixed its key meanwhile); still refused.
    await paid(sim, client, 'r-5');
    expect([rx.gets, rx.posts.length]).toEqual([2, 0]);
  });

  test('a URL answering the handshake without a Key, or not 2xx, gets no events', async () => {
    for (const [handshake, reason] of [
      [() => Response.json({ key: KEY }), 'answered no {"Key": …}'],
      [() => Response.json({ Key: KEY }, { status: 404 }), 'answered 404'],
    ] as const) {
      const rx = receiver(handshake);
      const { sim, client } = start(rx, 20);
      await paid(sim, client, 'r-6');
      expect(rx.posts).toHaveLength(0);
      expect(sim.webhooks.at(-1)).toMatchObject({ attempts: 0, delivered: false, result: { error: `webhook URL not verified: ${reason}` } });
    }
  });

  test('a new URL is verified before its first event', async () => {
    const wrong = receiver(() => Response.json({ Key: 'nope-nope' }));
    const right = receiver(() => Response.json({ Key: KEY }));
    running.push(right);
    const { sim, client } = start(wrong, 20);
    await paid(sim, client, 'r-7');
    sim.setWebhookUrl(right.url);
    expect(sim.webhookVerification).toBeNull();
    await paid(sim, client, 'r-8');
    expect([wrong.posts.length, right.gets, right.posts.length]).toEqual([0, 1, 1]);
    expect(sim.webhooks.at(-1)).toMatchObject({ url: right.url, attempts: 1, delivered: true, result: { status: 200 } });
  });
});
