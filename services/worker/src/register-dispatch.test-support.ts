import { expect } from 'bun:test';
import type { TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import type { RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';
import { createKioskIntent } from '@pos/core/payments/create-kiosk-intent';
import { getKioskPaymentDetails } from '@pos/core/payments/kiosk-payment-queries';
import { listSteps } from '@pos/core/payments/post-capture';
import { registerSyncOf } from '@pos/core/payments/transaction-records';
import { startWorker, type RunningWorker } from './worker.ts';
import { testWorkerDeps, waitFor, type TestEnv } from './test-support.ts';

/** What the register dispatch tests (register-a, -b, -c, -d) share: the worker, a captured kiosk order, its outcome. */

/** The real worker with card-b payments and the given register dispatchers, relaying every 25 ms. */
export function startDispatchWorker(env: TestEnv, prefix: string, payments: PaymentProviders, registers: RegisterDispatchDeps): Promise<RunningWorker> {
  return startWorker({
    ...testWorkerDeps(env, prefix),
    relayIntervalMs: 25,
    payments,
    registers,
  });
}

export interface KioskOrderFixture {
  readonly env: TestEnv;
  readonly tdb: TenantDb;
  readonly merchant: DemoSeedResult;
  readonly payments: PaymentProviders;
  /** The card-b simulator completing the terminal sale. */
  readonly cardB: { complete(idempotencyKey: string): Promise<unknown> | unknown };
}

/** 3 espressos and a croissant (plus `tipAmount`) at the kiosk, captured over card-b; the worker then dispatches them. */
export async function captureKioskOrder(f: KioskOrderFixture, tipAmount?: number): Promise<string> {
  const { env, tdb, merchant: m } = f;
  const deps = { tdb, tenantDatabase: m.merchant.tenant_database, merchantId: m.merchant.id, redis: env.redis, providers: f.payments, log: env.log, now: () => new Date() };
  const item = (name: string) => m.items.find((i) => i.name === name)!;
  const device = await tdb.selectFrom('devices').selectAll().where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
  const { transaction: t } = await createKioskIntent(deps, device, {
    lines: [
      { item_id: item('Espresso').id, qty: 3 },
      { item_id: item('Croissant').id, qty: 1 },
    ],
    ...(tipAmount !== undefined ? { tip_amount: tipAmount } : {}),
  });
  await f.cardB.complete(t.idempotency_key);
  expect((await getKioskPaymentDetails(deps, device, t.idempotency_key)).capture).toBe('dispatched');
  return t.id;
}

/** The transaction's recorded `register_dispatch` step, if any. */
export const dispatchStep = async (tdb: TenantDb, id: string) => (await listSteps(tdb, id)).find((s) => s.step === 'register_dispatch');

/** Waits for the dispatch step, then answers it with the transaction's register sync status and detail. */
export async function dispatchOutcome(tdb: TenantDb, id: string) {
  const step = await waitFor(async () => (await dispatchStep(tdb, id)) ?? false, 15_000, 'register dispatch');
  const sync = await registerSyncOf(tdb, id);
  return { step, pos: [sync.status, sync.detail] };
}
