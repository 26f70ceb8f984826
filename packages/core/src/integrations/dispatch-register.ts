import { sql } from 'kysely';
import type { CentralDb, TenantDb } from '@pos/db';
import { registerDiscount } from '@pos/domain';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { RegisterAClient, RegisterAError, RegisterATokenError, type RegisterAOrderInput, type RegisterAOrderType } from '@pos/providers/register-a/register-a-client';
import { registerSyncOf, setRegisterSync, type TransactionRow } from '../payments/transaction-records.ts';
import { recordToken, registerARecordByTenant } from './register-a-records.ts';
import { RegisterBClient } from '@pos/providers/register-b/register-b-client';
import { registerBDispatcher } from './register-b-dispatch.ts';
import { registerCDispatcher } from './register-c-dispatch.ts';
import { registerCConfigFromEnv, type RegisterCEnv } from './register-c-access.ts';
import { RegisterDClient } from '@pos/providers/register-d/register-d-client';
import { registerDVendors } from './register-d-admin.ts';
import { registerDDispatcher } from './register-d-dispatch.ts';
import { RegisterDispatchRefusal } from './register-dispatch-refusal.ts';
import { parseTokenKey, type TokenKey } from './token-crypto.ts';

/**
 * Order dispatch to the location's register (spec 3 post-capture step 3, `processOrderJob`): the
 * captured order, read from its kitchen item documents, goes to the register integration of its
 * location through `RegisterDispatcher` (register-a, register-c, register-b, register-d; others plug in the same way).
 * The transaction id is the register's `orderId`, so a second run (a retried job, `retry-sync`)
 * finds the same order there instead of creating another.
 */
export interface RegisterOrder {
  readonly orderId: string;
  readonly orderType: RegisterAOrderType;
  readonly lines: RegisterAOrderInput['lines'];
  readonly paid: number;
  readonly tip: number;
  readonly serviceCharge: number;
  readonly discountTotal: number;
  readonly customerName: string | null;
  readonly pickupTime: string | null;
  /** A payment test-mode sale (`is_test`: no money taken): never a register's fiscal sale. */
  readonly testOrder: boolean;
}

export type OrderChannel = TransactionRow['channel'];

/** What a dispatch records when the location has no register to send to. */
export const NO_REGISTER = 'No register is configured for this location.';

/** The providers whose active connection can make a location's register (`integration_connections.provider` before any `:`). */
export const REGISTER_PROVIDERS: readonly string[] = ['register-a', 'register-b', 'register-c', 'register-d'];

/**
 * What a dispatcher's push receives: the register order plus what a register that knows our items
 * by its own references needs (register-c links our item ids to its skus) and the channel.
 */
export interface DispatchOrder extends RegisterOrder {
  readonly channel: OrderChannel;
  readonly items: readonly { readonly itemId: string; readonly name: string; readonly qty: number }[];
}

/** What a dispatch ends with, recorded as the transaction's register sync state (`setRegisterSync`). */
export type DispatchOutcome =
  | { readonly status: 'synced'; readonly provider: string; readonly detail: string }
  | { readonly status: 'not_configured'; readonly detail: string }
  /** A test-mode order not sent to a register that has no test orders (it would be a real sale there), or an order cancelled after it was paid. */
  | { readonly status: 'skipped'; readonly provider?: string; readonly detail: string }
  /** Refused for good (licence, amounts, token claims): retrying cannot help. */
  | { readonly status: 'failed'; readonly provider: string; readonly detail: string }
  /** Could not reach the register or it failed on its side: the job is retried with backoff. */
  | { readonly status: 'retrying'; readonly provider: string; readonly detail: string };

export interface RegisterDispatcher {
  readonly provider: string;
  /**
   * True when the register can take an order as a test order that never becomes a fiscal sale
   * (register-a `testOrder`); a test-mode transaction is not sent to the others.
   */
  readonly takesTestOrders?: boolean;
  /**
   * The location's active integration of this provider, ready to push; null when there is none. The
   * channel is the transaction's: a register may route (or not take) orders per channel. A register is
   * found only through an active `integration_connections` row of the merchant whose provider is one of
   * `REGISTER_PROVIDERS` (`register-d:<vendor>` counts as `register-d`): the batch dispatch asks no
   * dispatcher for a merchant without one (`registerCandidatesStatement`).
   */
  target(tenantDatabase: string, locationId: string, channel?: OrderChannel): Promise<{ push(order: DispatchOrder): Promise<{ externalId: string }> } | null>;
}

export interface RegisterDispatchDeps {
  readonly central: CentralDb;
  readonly dispatchers: readonly RegisterDispatcher[];
  /** register-b's client when configured: the finalisation job pushes earned loyalty points with it (`registerBPointsStep`). */
  readonly registerB?: RegisterBClient;
}

/** register-a: the record's store and decrypted token; money leaves in major units through the client. */
export function registerADispatcher(central: CentralDb, config: { baseUrl: string; tokenKey: TokenKey; timeoutMs?: number }): RegisterDispatcher {
  return {
    provider: 'register-a',
    // Spec 3 "Register-a order lifecycles": a test order (`testOrder` true) cannot be finalised.
    takesTestOrders: true,
    async target(tenantDatabase, locationId) {
      const rec = await registerARecordByTenant(central, tenantDatabase, locationId);
      if (!rec || rec.status !== 'active' || !rec.storeId) return null;
      const token = recordToken(config.tokenKey, rec);
      if (!token) throw new RegisterATokenError('invalid_token', 'The stored register-a token cannot be read with the configured key.');
      const client = new RegisterAClient({ baseUrl: config.baseUrl, token, ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}) });
      const storeId = rec.storeId;
      return {
        async push(order) {
          const o = await client.pushOrder(storeId, {
            orderId: order.orderId,
            orderType: order.orderType,
            orderIsAlreadyPaid: true,
            testOrder: order.testOrder,
            pickupTime: order.pickupTime,
            lines: order.lines,
            paid: order.paid,
            tip: order.tip,
            serviceCharge: order.serviceCharge,
            discountTotal: order.discountTotal,
            customerName: order.customerName,
          });
          return { externalId: o.id };
        },
      };
    },
  };
}

/** `dining_option` as the channel sent it -> a documented register-a `orderType`. */
export function orderTypeOf(diningOption: string | null): RegisterAOrderType {
  const d = (diningOption ?? '').toLowerCase();
  if (d.includes('here') || d.includes('eat') || d.includes('dine') || d.includes('table')) return 'EAT_IN';
  if (d.includes('deliver')) return 'DELIVERY';
  if (d.includes('take') || d.includes('pick') || d.includes('away')) return 'PICKUP';
  return 'UNKNOWN';
}

/**
 * The register order of a captured transaction, in cents. A line whose total divides by its quantity
 * goes as quantity x unit price (modifier prices folded in, their names kept); otherwise as one line
 * of its total, so the lines always add up to what was charged. Line totals already carry our offers'
 * discounts; only a difference left between the lines with tip and fees and the captured total is sent
 * as a discount (`registerDiscount`), never as a higher payment.
 */
export function registerOrderOf(t: TransactionRow, kitchen: readonly { name: string; qty: number; total: number; modifiers: unknown }[]): RegisterOrder {
  const lines = kitchen.map((k) => {
    const mods = Array.isArray(k.modifiers) ? (k.modifiers as any[]).map((m) => ({ name: String(m?.name ?? m?.modifier_name ?? ''), price: 0 })).filter((m) => m.name) : [];
    return k.qty > 0 && k.total % k.qty === 0 ? { name: k.name, quantity: k.qty, unitPrice: k.total / k.qty, modifiers: mods } : { name: `${k.qty} x ${k.name}`, quantity: 1, unitPrice: k.total, modifiers: mods };
  });
  const discountTotal = registerDiscount({ lineTotals: kitchen.map((k) => k.total), tip: t.tip_amount, fees: t.fees, paid: t.total });
  return {
    orderId: t.id,
    orderType: orderTypeOf(t.dining_option),
    lines,
    paid: t.total,
    tip: t.tip_amount,
    serviceCharge: t.fees,
    discountTotal,
    customerName: t.customer_name,
    pickupTime: t.scheduled_for ? new Date(t.scheduled_for).toISOString() : null,
    testOrder: t.is_test,
  };
}

/** A dispatcher's register for a location, or the error its lookup failed with. */
export type RegisterLookup =
  | { readonly dispatcher: RegisterDispatcher; readonly target: NonNullable<Awaited<ReturnType<RegisterDispatcher['target']>>> }
  | { readonly dispatcher: RegisterDispatcher; readonly error: unknown };

/** The first configured dispatcher that finds a register for the location and channel, or whose lookup fails; null when none has one. */
export async function findRegister(deps: RegisterDispatchDeps, tenantDatabase: string, locationId: string, channel?: OrderChannel): Promise<RegisterLookup | null> {
  for (const dispatcher of deps.dispatchers) {
    try {
      const target = await dispatcher.target(tenantDatabase, locationId, channel);
      if (target) return { dispatcher, target };
    } catch (error) {
      return { dispatcher, error };
    }
  }
  return null;
}

/** The sync detail of an order a register took: `<provider> order <its id there>`. */
export const syncedDetail = (provider: string, externalId: string): string => `${provider} order ${externalId}`;

/** The register a synced order's detail (`syncedDetail`) names. */
export const registerOfSynced = (detail: string | null): string | null => /^(\S+) order /.exec(detail ?? '')?.[1] ?? null;

export const CANCELLED_NOT_SENT = 'The order was cancelled after it was paid: it is not sent to the register.';

/** Pushes the transaction's order to its location's register and writes the outcome on the transaction. */
export async function dispatchToRegister(deps: RegisterDispatchDeps, tdb: TenantDb, tenantDatabase: string, t: TransactionRow): Promise<DispatchOutcome> {
  // Cancelled after it was paid (a marketplace's cancellation): no sale for the register's takings.
  if (t.order_status === 'Cancelled') {
    const skipped = { status: 'skipped', detail: CANCELLED_NOT_SENT } as const;
    await setRegisterSync(tdb, t.id, skipped.status, skipped.detail);
    return skipped;
  }
  const found = await findRegister(deps, tenantDatabase, t.location_id, t.channel);
  // At a register already (a job run again, a sweep): never sent to another one the location has now,
  // and its record kept whatever the location has now (no register, a failing lookup); sent again only
  // to the register that has it (which finds the order by our id).
  const sync = await registerSyncOf(tdb, t.id);
  const holder = sync.status === 'synced' ? registerOfSynced(sync.detail) : null;
  const sameRegister = found !== null && !('error' in found) && holder === found.dispatcher.provider;
  if (sync.status === 'synced' && !sameRegister) return { status: 'synced', provider: holder ?? '', detail: sync.detail ?? '' };
  const outcome = found === null ? ({ status: 'not_configured', detail: NO_REGISTER } as const) : 'error' in found ? classify(found.dispatcher.provider, found.error) : await pushTo(tdb, t, found);
  await setRegisterSync(tdb, t.id, outcome.status, outcome.detail.slice(0, 500));
  return outcome;
}

/** The order pushed to the register found; a test-mode order only to a register that takes test orders. */
async function pushTo(tdb: TenantDb, t: TransactionRow, { dispatcher: d, target }: Extract<RegisterLookup, { target: unknown }>): Promise<DispatchOutcome> {
  if (t.is_test && !d.takesTestOrders) return { status: 'skipped', provider: d.provider, detail: `A test-mode order is not sent to ${d.provider}, which has no test orders.` };
  const kitchen = await tdb.selectFrom('kitchen_items').select(['item_id', 'name', 'qty', 'total', 'modifiers']).where('transaction_id', '=', t.id).orderBy('position').execute();
  const order: DispatchOrder = { ...registerOrderOf(t, kitchen), channel: t.channel, items: kitchen.map((k) => ({ itemId: k.item_id, name: k.name, qty: k.qty })) };
  try {
    const r = await target.push(order);
    return { status: 'synced', provider: d.provider, detail: syncedDetail(d.provider, r.externalId) };
  } catch (e) {
    return classify(d.provider, e);
  }
}

function classify(provider: string, e: unknown): DispatchOutcome {
  if (e instanceof RegisterATokenError || e instanceof RegisterDispatchRefusal) return { status: 'failed', provider, detail: e.message };
  if (e instanceof RegisterAError && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 429) return { status: 'failed', provider, detail: e.providerMessage };
  // register-b/c/d refusing the order (or payment) is final; a refused token (401: the merchant reconnects,
  // or our token is fixed) or a rate limit may clear, so those are retried.
  if (e instanceof ProviderError && (e.provider === 'register-b' || e.provider === 'register-c' || e.provider === 'register-d') && e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 429)
    return { status: 'failed', provider, detail: e.message };
  if (e instanceof ProviderError) return { status: 'retrying', provider, detail: e.message };
  throw e;
}

/** register-d's transport: one API token of ours for every vendor (no per-merchant token). */
export interface RegisterDDispatchEnv {
  REGISTER_D_API_URL?: string | undefined;
  REGISTER_D_API_TOKEN?: string | undefined;
  REGISTER_D_VENDORS?: string | undefined;
}

/**
 * The dispatchers the environment configures (register-a and register-c need their API address and the
 * token key; register-b its API address and partner token; register-d its transport address and token).
 * A location with more than one register
 * integration goes to the first in this order.
 */
export function registerDispatchFromEnv(
  central: CentralDb,
  env: { REGISTER_A_BASE_URL?: string | undefined; INTEGRATION_TOKEN_KEY?: string | undefined; REGISTER_B_API_URL?: string | undefined; REGISTER_B_API_TOKEN?: string | undefined } & RegisterCEnv & RegisterDDispatchEnv,
): RegisterDispatchDeps {
  const key = parseTokenKey(env.INTEGRATION_TOKEN_KEY);
  const dispatchers: RegisterDispatcher[] = [];
  if (env.REGISTER_A_BASE_URL && key) dispatchers.push(registerADispatcher(central, { baseUrl: env.REGISTER_A_BASE_URL, tokenKey: key }));
  if (env.REGISTER_C_API_URL && key) dispatchers.push(registerCDispatcher(central, registerCConfigFromEnv(env)));
  const registerB = env.REGISTER_B_API_URL && env.REGISTER_B_API_TOKEN ? new RegisterBClient({ baseUrl: env.REGISTER_B_API_URL, apiToken: env.REGISTER_B_API_TOKEN }) : null;
  if (registerB) dispatchers.push(registerBDispatcher(central, registerB));
  if (env.REGISTER_D_API_URL && env.REGISTER_D_API_TOKEN)
    dispatchers.push(registerDDispatcher(central, { client: new RegisterDClient({ baseUrl: env.REGISTER_D_API_URL, apiToken: env.REGISTER_D_API_TOKEN }), vendors: registerDVendors(env.REGISTER_D_VENDORS) }));
  return { central, dispatchers, ...(registerB ? { registerB } : {}) };
}

/**
 * The post-capture dispatch step with a register configuration: the outcome on the transaction, the
 * step recorded once it is final; a transient failure throws so the job is retried with backoff.
 */
export async function dispatchCaptured(deps: RegisterDispatchDeps, tdb: TenantDb, tenantDatabase: string, t: TransactionRow): Promise<void> {
  const o = await dispatchToRegister(deps, tdb, tenantDatabase, t);
  if (o.status === 'retrying') throw new Error(`register dispatch of ${t.id} will be retried: ${o.detail}`);
  await tdb
    .insertInto('transaction_steps')
    .values({ transaction_id: t.id, step: 'register_dispatch', outcome: o.status, detail: o.detail.slice(0, 500) })
    .onConflict((oc) => oc.columns(['transaction_id', 'step']).doUpdateSet({ outcome: o.status, detail: o.detail.slice(0, 500) }))
    .execute();
}

/**
 * The dispatch job ran out of retries for these transactions: a sync still `retrying` becomes `failed`
 * (`Retries exhausted: <last error>`), so the back office sees a failed sync to retry (`retry-sync`)
 * instead of a retry nothing will make. The post-capture sweep may still re-drive it within its window.
 */
export async function dispatchGaveUp(tdb: TenantDb, transactionIds: readonly string[]): Promise<void> {
  if (transactionIds.length === 0) return;
  await tdb
    .updateTable('transaction_register_sync')
    .set((eb) => ({ status: 'failed', detail: sql<string>`left('Retries exhausted: ' || coalesce(${eb.ref('detail')}, ''), 500)`, updated_at: sql`now()` }))
    .where('transaction_id', 'in', [...new Set(transactionIds)])
    .where('status', '=', 'retrying')
    .execute();
}
