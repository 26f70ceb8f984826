import type { CentralDb, TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { registerDispatchFromEnv, type RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';

/**
 * The post-capture benches' orders: one-line kiosk orders of the demo seed's kiosk, at its location (whose
 * kitchen station serves every category, so each order gets its ticket), inserted 250 at a time. `Awaiting
 * Payment` is the kiosk's create-intent result, to be captured; `Complete` is captured already (receipt
 * numbers, completion time). Answers their ids in order-number order.
 */
export async function insertKioskOrders(tdb: TenantDb, seed: DemoSeedResult, count: number, status: 'Awaiting Payment' | 'Complete'): Promise<{ ids: string[]; location: string; itemId: string }> {
  const location = (await tdb.selectFrom('devices').select('location_id').where('id', '=', seed.kiosk.device_id).executeTakeFirstOrThrow()).location_id;
  const item = seed.items[0]!;
  const category = (await tdb.selectFrom('items').select('category_id').where('id', '=', item.id).executeTakeFirstOrThrow()).category_id;
  const complete = status === 'Complete';
  const now = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < count; i += 250) {
    const chunk = Array.from({ length: Math.min(250, count - i) }, (_, k) => ({ id: Bun.randomUUIDv7(), n: i + k + 1 }));
    const at = new Date();
    await tdb
      .insertInto('transactions')
      .values(
        chunk.map((c) => ({
          id: c.id,
          location_id: location,
          device_id: seed.kiosk.device_id,
          channel: 'kiosk' as const,
          order_no: c.n,
          status,
          order_status: complete ? 'Queued' : null,
          payment_provider: 'card-b' as const,
          payment_snapshot: JSON.stringify({ provider: 'card-b' }),
          idempotency_key: `idemp_${seed.kiosk.device_id}_${now + c.n}`,
          all_idempotency_keys: [`idemp_${seed.kiosk.device_id}_${now + c.n}`],
          receipt_no: complete ? c.n : null,
          subtotal: item.unit_price,
          discount: 0,
          vat: 0,
          total: item.unit_price,
          by_vat_rate: JSON.stringify([]),
          offers: JSON.stringify([]),
          menu_version: 1,
          customer_id: null,
          loyalty_token: null,
          cart_session_id: null,
          ...(complete ? { completed_at: at } : {}),
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    await tdb
      .insertInto('transaction_lines')
      .values(chunk.map((c) => ({ transaction_id: c.id, position: 0, item_id: item.id, category_id: category, name: item.name, qty: 1, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: item.unit_price, discount: 0, total: item.unit_price, modifiers: JSON.stringify([]), variant: null })))
      .execute();
    ids.push(...chunk.map((c) => c.id));
  }
  return { ids, location, itemId: item.id };
}

/**
 * Every register client configured, as a production worker with all four providers has them, at an
 * address nothing listens on: the bench location has no register, so nothing is ever sent there.
 */
export function benchRegisters(central: CentralDb): RegisterDispatchDeps {
  const nowhere = 'http://127.0.0.1:9';
  return registerDispatchFromEnv(central, {
    INTEGRATION_TOKEN_KEY: 'ab'.repeat(32),
    REGISTER_A_BASE_URL: nowhere,
    REGISTER_B_API_URL: nowhere,
    REGISTER_B_API_TOKEN: 'bench-register-b-token',
    REGISTER_C_API_URL: nowhere,
    REGISTER_D_API_URL: nowhere,
    REGISTER_D_API_TOKEN: 'bench-register-d-token',
  });
}
