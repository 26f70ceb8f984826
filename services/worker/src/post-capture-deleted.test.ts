import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, enqueueOutbox, type TenantDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import { jobMessage, paymentPostCaptureJob, rowMessages } from '@pos/kernel/queues/index';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { deleteTestTransaction } from '@pos/core/payments/transaction-actions';
import { listSteps, printOrderReceipt, runPostCaptureMany, writeKitchenItems, writeKitchenTickets, type PaymentCapturedListener } from '@pos/core/payments/post-capture';
import { createKitchenTicketsMany } from '@pos/core/kitchen/tickets';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { deleteTenantOutbox, dropPrefix, openTestEnv, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * A test-mode transaction deleted (`DELETE /transactions/{id}`) while its post-capture sequence is
 * queued or running: its steps end quietly (done, logged once as skipped, never retried), nothing is
 * written for it, and the other transactions of its batch go through their whole sequence.
 */
let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;
let category: string | null;

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, { slug: `pcd-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  category = (await tdb.selectFrom('items').select('category_id').where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow()).category_id;
});
afterAll(async () => {
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await env.close();
});

/** A logger that keeps what it is told (the worker's children share it). */
function recordingLogger(): Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log = { lines, debug: () => {}, info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

let orderNo = 0;
/** A captured (Complete) test-mode kiosk transaction with one line routed to the seed's kitchen station. */
async function captured(): Promise<string> {
  const id = Bun.randomUUIDv7();
  const item = m.items[0]!;
  const n = ++orderNo;
  await tdb
    .insertInto('transactions')
    .values({
      id,
      location_id: m.locations[0]!.id,
      device_id: m.kiosk.device_id,
      channel: 'kiosk',
      order_no: n,
      status: 'Complete',
      order_status: 'Queued',
      payment_provider: 'card-b',
      // A test-mode kiosk order completes as the synthetic test payment (no provider took money): deletable.
      payment_snapshot: JSON.stringify({ id: `free_${id}`, is_free: true }),
      idempotency_key: `idemp_${m.kiosk.device_id}_${Date.now()}${n}`,
      all_idempotency_keys: [],
      receipt_no: n,
      subtotal: 250,
      discount: 0,
      vat: 0,
      total: 250,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: 1,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: null,
      is_test: true,
      completed_at: new Date(),
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute();
  await tdb
    .insertInto('transaction_lines')
    .values({ transaction_id: id, position: 0, item_id: item.id, category_id: category, name: item.name, qty: 2, unit_price: 125, vat_rate: item.vat_rate, gross: 250, discount: 0, total: 250, modifiers: JSON.stringify([]), variant: null })
    .execute();
  return id;
}

const deps = (log: Logger) => ({ tdb, tenantDatabase: m.merchant.tenant_database, redis: env.redis, providers: paymentProvidersFromEnv({}), log, now: () => new Date() });

/** Everything the sequence writes for a transaction: trace, kitchen documents, tickets (and their lines and events), print jobs, outbox jobs. */
async function leftFor(id: string) {
  const tickets = await tdb.selectFrom('kitchen_tickets').select('id').where('source', '=', 'transaction').where('source_id', '=', id).execute();
  const ticketIds = tickets.map((t) => t.id);
  return {
    steps: (await listSteps(tdb, id)).map((s) => s.step),
    kitchen_items: (await tdb.selectFrom('kitchen_items').select('position').where('transaction_id', '=', id).execute()).length,
    tickets: ticketIds.length,
    ticket_lines: ticketIds.length ? (await tdb.selectFrom('kitchen_ticket_lines').select('position').where('ticket_id', 'in', ticketIds).execute()).length : 0,
    print_jobs: (await tdb.selectFrom('print_jobs').select('id').where('source_key', '=', `order:${id}`).execute()).length,
    jobs: (
      await env.handle.db
        .selectFrom('outbox')
        .select(['job', 'payload'])
        .where('job', '<>', paymentPostCaptureJob.name)
        .orderBy('id')
        .execute()
    )
      .flatMap(rowMessages)
      .filter((x) => (x.payload as { transaction_id?: string }).transaction_id === id)
      .map((x) => x.job),
  };
}
const nothing = { steps: [], kitchen_items: 0, tickets: 0, ticket_lines: 0, print_jobs: 0, jobs: [] };

describe('a test-mode transaction deleted during its post-capture sequence', () => {
  test('deleted after the re-read, before the kitchen writes: the batch goes on, the deleted one gets nothing and is skipped once', async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, () => captured()));
    const doomed = ids[2]!;
    const log = recordingLogger();
    // The DELETE lands between the re-read and the first kitchen write (the listeners run in order).
    const deleteNow: PaymentCapturedListener = async () => deleteTestTransaction(deps(log), doomed);
    const outcomes = await runPostCaptureMany(
      tdb,
      m.merchant.tenant_database,
      ids.map((id) => ({ transaction_id: id, stock_changed: false })),
      [deleteNow, writeKitchenItems, writeKitchenTickets, printOrderReceipt],
      log,
    );
    expect(outcomes).toEqual([null, null, null, null]);
    expect(await tdb.selectFrom('transactions').select('id').where('id', '=', doomed).executeTakeFirst()).toBeUndefined();
    expect(await leftFor(doomed)).toEqual(nothing);
    for (const id of ids.filter((x) => x !== doomed)) {
      expect({ id, ...(await leftFor(id)) }).toEqual({ id, steps: ['reread', 'payment_captured', 'queue_jobs'], kitchen_items: 1, tickets: 1, ticket_lines: 1, print_jobs: 0, jobs: ['order.dispatch', 'payment.finalise'] });
    }
    expect(log.lines).toEqual([{ level: 'info', msg: 'transaction deleted; step skipped', fields: { step: 'post_capture', transaction_ids: [doomed] } }]);
  });

  test('deleted while its kitchen ticket is being written: the DELETE waits for that commit, then removes the ticket with the transaction', async () => {
    const id = await captured();
    const log = recordingLogger();
    let deleted = false;
    let pending: Promise<void> | undefined;
    let ticketId = '';
    await tdb.transaction().execute(async (tx) => {
      const [created] = await createKitchenTicketsMany(tx, [{ source: 'transaction', sourceId: id, locationId: m.locations[0]!.id, orderNo: '7', at: new Date(), lines: [{ position: 0, item_id: m.items[0]!.id, category_id: category, name: 'Espresso', qty: 1, modifiers: [] }] }], { liveTransactionsOnly: true });
      ticketId = created!.id;
      pending = deleteTestTransaction(deps(log), id).then(() => void (deleted = true));
      await Bun.sleep(300);
      // The ticket's statement (as the post-capture listener writes it) holds the transaction's row: the DELETE cannot pass it.
      expect(deleted).toBe(false);
    });
    await pending;
    expect(deleted).toBe(true);
    expect(await leftFor(id)).toEqual(nothing);
    // Its `created` event went with it; the screens were told it is `removed`.
    expect(await tdb.selectFrom('kitchen_events').select('action').where('ticket_id', '=', ticketId).execute()).toEqual([{ action: 'removed' }]);
  });

  test('through the worker: one transaction of a batch deleted between its capture and the job; the others finish every step, the deleted one is skipped once, never retried', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => captured()));
    const doomed = ids[1]!;
    // What each capture's commit writes: its post-capture job.
    for (const id of ids) await enqueueOutbox(tdb, jobMessage(paymentPostCaptureJob, { tenant_database: m.merchant.tenant_database, transaction_id: id, stock_changed: false }));
    const log = recordingLogger();
    await deleteTestTransaction(deps(log), doomed);
    const prefix = uniquePrefix();
    let worker: RunningWorker | undefined;
    try {
      worker = await startWorker({ ...testWorkerDeps(env, prefix), log, relayIntervalMs: 25 });
      const others = ids.filter((x) => x !== doomed);
      await waitFor(async () => {
        for (const id of others) {
          const steps = (await listSteps(tdb, id)).map((s) => s.step);
          if (!steps.includes('finalise') || !steps.includes('register_dispatch')) return false;
        }
        return true;
      }, 15_000, 'the other transactions\' sequences');
      // Long enough for a retry of a failed row to have run (the first backoff is shorter).
      await Bun.sleep(1500);
      for (const id of others) {
        const steps = (await listSteps(tdb, id)).map((s) => s.step);
        expect({ id, steps: steps.slice(0, 3), after: steps.slice(3).sort() }).toEqual({ id, steps: ['reread', 'payment_captured', 'queue_jobs'], after: ['finalise', 'register_dispatch'] });
        expect(await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toHaveLength(1);
      }
      expect(await leftFor(doomed)).toEqual(nothing);
      // This tenant's rows (the post-capture jobs and the fan-out rows they wrote): none failed, none was refused.
      const rows = new Set(
        (
          await env.handle.db
            .selectFrom('outbox')
            .select('id')
            .where((eb) =>
              eb.or([
                eb(sql<string>`payload->>'tenant_database'`, '=', m.merchant.tenant_database),
                eb(sql<boolean>`payload @> ${JSON.stringify({ messages: [{ payload: { tenant_database: m.merchant.tenant_database } }] })}::jsonb`, '=', true),
              ]),
            )
            .execute()
        ).map((r) => Number(r.id)),
      );
      const mine = log.lines.filter((l) => l.msg === 'transaction deleted; step skipped' || rows.has(Number(l.fields?.outbox_id)));
      expect(mine).toEqual([{ level: 'info', msg: 'transaction deleted; step skipped', fields: { job: 'payment.post-capture', job_id: expect.any(String), step: 'post_capture', transaction_ids: [doomed] } }]);
    } finally {
      await stopWorker(worker);
      await dropPrefix(env.redis, prefix);
    }
  });
});
