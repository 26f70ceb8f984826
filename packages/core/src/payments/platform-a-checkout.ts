import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { ProviderError, type PlatformACheckout } from '@pos/providers/payments';
import type { PaymentProviders } from './payment-providers.ts';
import { notConfigured } from './provider-outcome.ts';
import { loadTransaction, type TransactionRow } from './transaction-records.ts';

/**
 * The terminal checkout of a platform-a kiosk start, as asked for: the same request every time for one
 * idempotency key (the provider answers a repeated key with the checkout it created for it, if the
 * parameters are the same).
 */
export function createKioskCheckout(providers: PaymentProviders, t: Pick<TransactionRow, 'id' | 'total' | 'order_no'>, key: string, deviceId: string): Promise<PlatformACheckout> {
  if (!providers.platformA) notConfigured('platform-a');
  return providers.platformA.createTerminalCheckout({ idempotencyKey: key, amount: t.total, currency: providers.currency, deviceId, referenceId: t.id, note: `Order ${t.order_no}` });
}

/** A platform-a start whose checkout id never came back (its answer was lost): the key and device it was asked with. */
export function lostCheckoutStart(t: TransactionRow): { key: string; deviceId: string } | null {
  const s = t.payment_snapshot;
  if (s.provider !== 'platform-a' || typeof s.checkout_id === 'string' || typeof s.device_id !== 'string' || typeof s.idempotency_key !== 'string') return null;
  return s.idempotency_key === t.idempotency_key ? { key: s.idempotency_key, deviceId: s.device_id } : null;
}

/**
 * Learns the checkout of a start whose answer was lost by asking for it again with the same key: the
 * provider answers the checkout that start created (or creates it, if the first request never arrived:
 * then it is this start's checkout from now on). Its id is saved in the snapshot, so polls, cancel,
 * verify and the webhook find it. Anything else (a checkout id known, another provider) is left as it is.
 */
export async function recoverLostCheckout(tdb: TenantDb, providers: PaymentProviders, t: TransactionRow): Promise<TransactionRow> {
  const lost = lostCheckoutStart(t);
  if (!lost) return t;
  const c = await createKioskCheckout(providers, t, lost.key, lost.deviceId);
  await tdb
    .updateTable('transactions')
    .set({ payment_snapshot: sql`payment_snapshot || jsonb_build_object('checkout_id', ${c.id}::text)` })
    .where('id', '=', t.id)
    .where('idempotency_key', '=', lost.key)
    .where(sql<boolean>`payment_snapshot->>'checkout_id' is null`)
    .execute();
  return loadTransaction(tdb, t.id);
}
