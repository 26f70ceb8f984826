import { withWriteRetry, type TenantDb } from '@pos/db';
import { inHouseDiningRefusal, type InHouseDiningOption } from '@pos/domain/online-ordering/dining-options';
import { readSettings } from '../online-ordering/channel-settings.ts';
import { AppError, errors } from '@pos/kernel';
import { stampPaymentProvider } from '@pos/domain';
import { quoteBasket, type QuoteLineInput } from '../catalog/quote-basket.ts';
import { extendReservation, holdOrderStock } from '../catalog/stock-availability.ts';
import { readPaymentSettings, type KioskDevice } from './kiosk-device.ts';
import { inPersonProviderOf } from './in-person-provider.ts';
import { resolveLoyaltyToken } from '../customers/loyalty-tokens.ts';
import { checkRewardPoints, rewardAsOffer } from '../customers/rewards.ts';
import { withRewardCost } from '@pos/domain/customers/reward-cost';
import { startKioskPayment, type KioskPaymentDeps } from './start-kiosk-payment.ts';
import { mintKioskKey } from './kiosk-keys.ts';
import { discardUnstarted, insertQuotedLines, loadLines, nextCounter, type TransactionLineRow, type TransactionRow } from './transaction-records.ts';

export interface CreateKioskIntentInput {
  /** A new order: its basket, priced server-side from the published menu. */
  readonly lines?: readonly QuoteLineInput[];
  /** A retry of an existing transaction of this kiosk: a fresh key, the same order. */
  readonly transaction_id?: string;
  /** Cents. */
  readonly tip_amount?: number;
  readonly loyalty_token?: string;
  /** `For Here`, `Takeaway`, ... (the omni-channel stream's buckets read it). */
  readonly dining_option?: string;
  /** A loyalty reward of the customer behind `loyalty_token`, priced as an amount off (points taken after payment). */
  readonly reward_id?: string;
}

/**
 * `POST /kiosk/payment/create-intent` (spec 3 "Payment routes"): creates the transaction (order
 * number, item snapshot, pricing from the published menu through the one pricing function, optional
 * loyalty token, idempotency key, status Pending), then starts the provider payment. With
 * `transaction_id` it retries the payment of that transaction instead (a fresh key folded into the
 * history). Client prices are never read: the body carries item ids and quantities only.
 */
/**
 * Only a dining option the location offers in house (the kiosk's channel settings), as online orders:
 * 422 on `dining_option` otherwise. The quote checks it as create-intent does, so a kiosk learns before
 * paying that takeaway is off.
 */
export async function requireKioskDiningOption(tdb: TenantDb, locationId: string, option: string): Promise<void> {
  const refused = inHouseDiningRefusal(option as InHouseDiningOption, (await readSettings(tdb, locationId, 'in_house')).settings);
  if (refused) throw errors.field('dining_option', refused);
}

export async function createKioskIntent(deps: KioskPaymentDeps & { merchantId: string }, device: KioskDevice, input: CreateKioskIntentInput): Promise<{ transaction: TransactionRow; lines: TransactionLineRow[] }> {
  const hasLines = input.lines !== undefined;
  const hasRetry = input.transaction_id !== undefined;
  if (hasLines === hasRetry) {
    throw errors.validation({ [hasLines ? 'transaction_id' : 'lines']: [hasLines ? 'Send either lines (a new order) or transaction_id (a retry), not both.' : 'The lines field is required unless transaction_id names a payment to retry.'] });
  }
  if (hasRetry) {
    // A retry pays the order as it was created: a field that would change it is refused, not dropped.
    const changes = (['tip_amount', 'loyalty_token', 'reward_id', 'dining_option'] as const).filter((k) => input[k] !== undefined);
    if (changes.length) throw errors.validation(Object.fromEntries(changes.map((k) => [k, [`The ${k} field cannot be sent with transaction_id: a retry pays the order as it was created.`]])));
    const own = await deps.tdb.selectFrom('transactions').select('id').where('id', '=', input.transaction_id!).where('device_id', '=', device.id).executeTakeFirst();
    if (!own) throw errors.notFound('transaction');
    // The retried payment keeps the order's stock for another while.
    await extendReservation(deps.tdb, own.id, deps.now());
    const t = await startKioskPayment(deps, device, own.id);
    return { transaction: t, lines: await loadLines(deps.tdb, t.id) };
  }

  const now = deps.now();
  if (input.dining_option !== undefined) await requireKioskDiningOption(deps.tdb, device.location_id, input.dining_option);
  // The customer comes from a live loyalty token of this kiosk; the transaction keeps the token's hash.
  const loyalty = input.loyalty_token !== undefined ? await resolveLoyaltyToken(deps.tdb, input.loyalty_token, device.id, now) : null;
  if (input.reward_id !== undefined && !loyalty) throw errors.field('reward_id', 'A reward needs the customer\'s loyalty_token.');
  const reward = input.reward_id !== undefined && loyalty ? [await rewardAsOffer(deps.tdb, { rewardId: input.reward_id, customerId: loyalty.customer_id, locationId: device.location_id })] : [];
  const quote = await quoteBasket({ tdb: deps.tdb, redis: deps.redis, merchantId: deps.merchantId, now }, { locationId: device.location_id, channel: 'kiosk' }, input.lines!, reward);
  // A free order is completed without a terminal; a tip alone is not a sale a terminal takes (card-b's
  // sale amount excludes the tip).
  if (quote.total === 0 && (input.tip_amount ?? 0) > 0) throw errors.field('tip_amount', 'A tip cannot be added to a free order.');
  const location = await deps.tdb.selectFrom('locations').select('payment_settings').where('id', '=', device.location_id).executeTakeFirstOrThrow();
  const settings = readPaymentSettings(location.payment_settings);
  const provider = stampPaymentProvider('kiosk', await inPersonProviderOf(deps.tdb, device.location_id), deps.providers.defaults);
  const key = await mintKioskKey(deps.tdb, device.id, now);
  const tip = input.tip_amount ?? 0;
  const id = Bun.randomUUIDv7();

  await withWriteRetry(() =>
    deps.tdb.transaction().execute(async (tx) => {
      // One set of points pays for one reward: checked again under the account's lock, beside the
      // customer's other orders still holding theirs.
      if (reward[0] && loyalty) await checkRewardPoints(tx, loyalty.customer_id, reward[0], now);
      const orderNo = await nextCounter(tx, device.location_id, 'order_no');
      await tx
        .insertInto('transactions')
        .values({
          id,
          location_id: device.location_id,
          device_id: device.id,
          channel: 'kiosk',
          order_no: orderNo,
          status: 'Pending',
          order_status: null,
          payment_provider: provider,
          payment_snapshot: JSON.stringify({ idempotency_key: key }),
          idempotency_key: key,
          all_idempotency_keys: [key],
          invalid_idempotency_keys: [],
          receipt_no: null,
          subtotal: quote.subtotal,
          discount: quote.discount,
          vat: quote.vat,
          tip_amount: tip,
          total: quote.total + tip,
          by_vat_rate: JSON.stringify(quote.by_vat_rate),
          // The reward's entry keeps the points it costs now: the order pays those, not a later cost.
          offers: JSON.stringify(withRewardCost(quote.offers, reward[0] ?? null)),
          menu_version: quote.menu_version,
          is_test: settings.test_mode,
          customer_id: loyalty?.customer_id ?? null,
          loyalty_token: loyalty?.token_hash ?? null,
          dining_option: input.dining_option ?? null,
          cart_session_id: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await insertQuotedLines(tx, id, quote.lines);
      await holdOrderStock(tx, { transactionId: id, locationId: device.location_id, lines: quote.lines, now });
    }),
  );
  const t = await startKioskPayment(deps, device, id).catch((e: unknown) => refusedStart(deps, id, e));
  return { transaction: t, lines: await loadLines(deps.tdb, id) };
}

/** Refusals that come before any provider session exists: no terminal or provider configured, the terminal busy with another payment, the kiosk's terminal payments turned off. */
const NOTHING_STARTED = new Set(['terminal_not_configured', 'provider_not_configured', 'terminal_busy', 'payment_disabled']);

/**
 * A new order whose payment could not start. When no provider session can exist (`NOTHING_STARTED`),
 * the transaction is removed (`discardUnstarted`). Otherwise (the provider failed or did not answer: a session may exist) it is
 * kept, and the error names it so the kiosk can retry it (`transaction_id`) or cancel it.
 */
async function refusedStart(deps: KioskPaymentDeps, id: string, e: unknown): Promise<never> {
  if (!(e instanceof AppError)) throw e;
  if (e.reason !== undefined && NOTHING_STARTED.has(e.reason)) {
    await discardUnstarted(deps.tdb, id);
    throw e;
  }
  throw new AppError(e.code, e.message, { ...(e.reason !== undefined ? { reason: e.reason } : {}), ...(e.errors ? { errors: e.errors } : {}), extra: { ...e.extra, transaction_id: id }, cause: e });
}
