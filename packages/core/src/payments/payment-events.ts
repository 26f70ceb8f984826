import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

/** Redis pub/sub channel of a tenant's payment status changes (the real-time channel fans them out). */
export const paymentChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:payments`;
/** Redis pub/sub channel of a tenant's kitchen events (orders ready for the kitchen display). */
export const kitchenChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:kitchen`;

/**
 * Publishes messages on one channel as one Redis message: the texts in order, one per line (they are
 * JSON texts, which never hold a raw newline; the real-time hub splits them). A batch of a hundred
 * kitchen events is one command instead of a hundred. A message Redis refuses, or a lost connection,
 * is logged with each text's fields and never thrown: the real-time channel is a nudge, clients catch
 * up by reading.
 */
export async function publishAll(redis: Redis, channel: string, messages: readonly { message: string; fields: Record<string, unknown> }[], failure: string, log: Logger): Promise<void> {
  if (messages.length === 0) return;
  if (messages.some((m) => m.message.includes('\n'))) throw new Error('a real-time message must be one line');
  try {
    await redis.publish(channel, messages.map((m) => m.message).join('\n'));
  } catch (e) {
    for (const m of messages) log.warn(failure, { ...m.fields, err: e });
  }
}

/** A kitchen order (the kitchen documents of a captured transaction are written). */
export interface KitchenOrderEvent {
  location_id: string;
  transaction_id: string;
  order_no: number;
  items: { name: string; qty: number }[];
}

/** Publishes kitchen orders after their kitchen documents are written, one message for the batch; a failure is logged. */
export async function publishKitchenOrders(redis: Redis, tenantDatabase: string, events: readonly KitchenOrderEvent[], log: Logger): Promise<void> {
  await publishAll(
    redis,
    kitchenChannel(tenantDatabase),
    events.map((e) => ({ message: JSON.stringify({ type: 'kitchen.order', ...e }), fields: { transaction_id: e.transaction_id } })),
    'kitchen event push failed',
    log,
  );
}

/** Publishes one kitchen order (`publishKitchenOrders` with one). */
export async function publishKitchenEvent(redis: Redis, tenantDatabase: string, event: KitchenOrderEvent, log: Logger): Promise<void> {
  await publishKitchenOrders(redis, tenantDatabase, [event], log);
}

/**
 * Pushes a payment status change on the real-time channel, after the commit. A failure is logged and
 * never undoes the capture (clients also poll session-status and details).
 */
export async function publishPaymentStatus(redis: Redis, tenantDatabase: string, event: { transaction_id: string; location_id: string; status: string }, log: Logger): Promise<void> {
  await publishAll(redis, paymentChannel(tenantDatabase), [{ message: JSON.stringify({ type: 'payment.status', ...event }), fields: { transaction_id: event.transaction_id } }], 'payment status push failed', log);
}
