import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

/** Redis pub/sub channel of a tenant's payment status changes (the real-time channel fans them out). */
export const paymentChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:payments`;
/** Redis pub/sub channel of a tenant's kitchen events (orders ready for the kitchen display). */
export const kitchenChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:kitchen`;

/** Publishes a kitchen event after the kitchen documents are written; a failure is logged. */
export async function publishKitchenEvent(
  redis: Redis,
  tenantDatabase: string,
  event: { location_id: string; transaction_id: string; order_no: number; items: { name: string; qty: number }[] },
  log: Logger,
): Promise<void> {
  try {
    await redis.publish(kitchenChannel(tenantDatabase), JSON.stringify({ type: 'kitchen.order', ...event }));
  } catch (e) {
    log.warn('kitchen event push failed', { transaction_id: event.transaction_id, err: e });
  }
}

/**
 * Pushes a payment status change on the real-time channel, after the commit. A failure is logged and
 * never undoes the capture (clients also poll session-status and details).
 */
export async function publishPaymentStatus(redis: Redis, tenantDatabase: string, event: { transaction_id: string; status: string }, log: Logger): Promise<void> {
  try {
    await redis.publish(paymentChannel(tenantDatabase), JSON.stringify({ type: 'payment.status', ...event }));
  } catch (e) {
    log.warn('payment status push failed', { transaction_id: event.transaction_id, err: e });
  }
}
