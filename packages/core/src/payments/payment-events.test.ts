import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type Redis from 'ioredis';
import { createRedis, ensureRedis, type Logger } from '@pos/kernel';
import { kitchenChannel, publishAll, publishKitchenOrders } from './payment-events.ts';

/** A logger that keeps its warnings. */
function recordingLogger(): Logger & { warnings: { msg: string; fields: Record<string, unknown> | undefined }[] } {
  const warnings: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
  const log = {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (msg: string, fields?: Record<string, unknown>) => void warnings.push({ msg, fields }),
    error: () => {},
    child: () => log,
  };
  return log;
}

let url: string;
let pub: Redis;
let sub: Redis;
beforeAll(async () => {
  url = await ensureRedis(process.env.REDIS_URL);
  pub = createRedis(url, 'publish-all-test');
  sub = createRedis(url, 'publish-all-test-sub');
});
afterAll(async () => {
  pub.disconnect();
  sub.disconnect();
});

/** Collects the messages of `channel` until `n` arrived. */
async function collect(channel: string, n: number, publish: () => Promise<void>): Promise<string[]> {
  const got: string[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  const onMessage = (ch: string, m: string) => {
    if (ch !== channel) return;
    got.push(m);
    if (got.length === n) done();
  };
  sub.on('message', onMessage);
  await sub.subscribe(channel);
  await publish();
  await Promise.race([all, Bun.sleep(2000)]);
  sub.off('message', onMessage);
  await sub.unsubscribe(channel);
  return got;
}

describe('publishing on the real-time channel', () => {
  test('a batch goes out as one message, one text per line in call order; a single text as it is', async () => {
    const channel = `test:publish-all:${crypto.randomUUID()}`;
    const log = recordingLogger();
    const messages = Array.from({ length: 50 }, (_, i) => ({ message: JSON.stringify({ i, text: 'a\nb' }), fields: { i } }));
    const got = await collect(channel, 2, async () => {
      await publishAll(pub, channel, messages, 'push failed', log);
      await publishAll(pub, channel, [messages[7]!], 'push failed', log);
    });
    expect(got).toEqual([messages.map((m) => m.message).join('\n'), messages[7]!.message]);
    expect(got[0]!.split('\n').map((t) => JSON.parse(t))).toEqual(messages.map((_, i) => ({ i, text: 'a\nb' })));
    expect(log.warnings).toEqual([]);
  });

  test('a text with a raw line break is refused: the hub would split it', async () => {
    await expect(publishAll(pub, 'test:never', [{ message: 'a\nb', fields: {} }], 'push failed', recordingLogger())).rejects.toThrow('a real-time message must be one line');
  });

  test('kitchen orders carry their type and fields, one line per order', async () => {
    const tenant = `t_publish_${crypto.randomUUID().slice(0, 8)}`;
    const log = recordingLogger();
    const orders = [
      { location_id: 'l1', transaction_id: 't1', order_no: 1, items: [{ name: 'Fries', qty: 2 }] },
      { location_id: 'l1', transaction_id: 't2', order_no: 2, items: [] },
    ];
    const got = await collect(kitchenChannel(tenant), 1, () => publishKitchenOrders(pub, tenant, orders, log));
    expect(got[0]!.split('\n').map((m) => JSON.parse(m))).toEqual(orders.map((o) => ({ type: 'kitchen.order', ...o })));
  });

  test('Redis away: each message is logged with its fields and nothing is thrown', async () => {
    const gone = createRedis('redis://127.0.0.1:1', 'publish-all-gone');
    gone.on('error', () => {});
    const log = recordingLogger();
    await publishAll(gone, 'test:gone', [{ message: 'a', fields: { seq: 1 } }, { message: 'b', fields: { seq: 2 } }], 'kitchen event push failed', log);
    gone.disconnect();
    expect(log.warnings.map((w) => [w.msg, w.fields?.seq])).toEqual([
      ['kitchen event push failed', 1],
      ['kitchen event push failed', 2],
    ]);
    expect(log.warnings.every((w) => w.fields?.err instanceof Error)).toBe(true);
  });
});
