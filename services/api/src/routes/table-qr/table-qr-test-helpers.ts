import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { nextCounter } from '@pos/core/payments/transaction-records';
import type { TestApi } from '../../testing/harness.ts';

/**
 * An online (card-a) order at `locationId` started as the online payment route would (Awaiting
 * Payment, the table session in the snapshot when given), then, unless `paid: false`, captured through
 * the payments core with a succeeded card-a outcome, as verify or the webhook would.
 */
export async function onlineOrder(api: TestApi, m: DemoSeedResult, locationId: string, o: { total?: number; tableSessionId?: string; paid?: boolean } = {}) {
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  const id = Bun.randomUUIDv7();
  const key = `idemp_online_${id}`;
  const total = o.total ?? 1250;
  await tdb.transaction().execute(async (tx) => {
    const orderNo = await nextCounter(tx, locationId, 'order_no');
    await tx
      .insertInto('transactions')
      .values({
        id,
        location_id: locationId,
        device_id: null,
        channel: o.tableSessionId ? 'table_qr' : 'online_ordering',
        order_no: orderNo,
        status: 'Awaiting Payment',
        order_status: null,
        payment_provider: 'card-a',
        payment_snapshot: JSON.stringify({ idempotency_key: key, provider: 'card-a', intent_id: `pi_${id}`, ...(o.tableSessionId ? { table_session_id: o.tableSessionId } : {}) }),
        idempotency_key: key,
        all_idempotency_keys: [key],
        invalid_idempotency_keys: [],
        receipt_no: null,
        subtotal: total,
        discount: 0,
        vat: Math.round((total * 6) / 106),
        total,
        by_vat_rate: JSON.stringify([]),
        offers: JSON.stringify([]),
        menu_version: null,
        created_at: new Date(),
        updated_at: new Date(),
      })
      .execute();
  });
  if (o.paid !== false) {
    const r = await capturePayment(
      { tdb, tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() },
      id,
      { kind: 'webhook', outcome: 'succeeded', data: { intent_id: `pi_${id}`, via: 'webhook' } },
    );
    if (r.status !== 'Complete') throw new Error(`capture failed: ${r.status}`);
  }
  return id;
}
