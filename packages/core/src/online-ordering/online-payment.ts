import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Redis } from 'ioredis';
import { isUniqueViolation, withWriteRetry, type CentralDb, type TenantDb } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { addLocalDays, capacitySlotOf, deliveryAddressRefusal, diningOptionRefusal, normaliseDeliveryAddress, type DeliveryAddress, mintIdempotencyKey, onlinePaymentProvider, requestHash, REQUEST_IN_PROGRESS, REQUEST_KEY_REUSED, paymentTransition, stampPaymentProvider, type PaymentProvider } from '@pos/domain';
import { ProviderError } from '@pos/providers/payments';
import { quoteBasket, type QuoteLineInput } from '../catalog/quote-basket.ts';
import { holdOrderStock, renewOrderHold, tracksStock } from '../catalog/stock-availability.ts';
import { SESSION_CLOSED } from '../table-qr/table-sessions.ts';
import { capturePayment, type CaptureDeps } from '../payments/capture-payment.ts';
import { verifyCardBOnline } from '../payments/card-b-online-verify.ts';
import { readPaymentSettings } from '../payments/kiosk-device.ts';
import type { PaymentProviders } from '../payments/payment-providers.ts';
import { notConfigured, providerFailure } from '../payments/provider-outcome.ts';
import { withPaymentStartLock } from '../payments/payment-start-lock.ts';
import { onlineVerifyFlight, providerCheckFlight } from '../payments/provider-check-flight.ts';
import { runningProvider } from '../payments/running-provider.ts';
import { slotUsage } from '../payments/order-capacity.ts';
import { discardUnstarted, insertQuotedLines, loadTransaction, nextCounter, type TransactionRow } from '../payments/transaction-records.ts';
import { registerBIntegrated } from '../integrations/register-b-integrated.ts';
import { readSettings } from './channel-settings.ts';
import { availableTimeslots, onlineLocation, requireOpenTableSession, storefrontOf, tableQrLocation, type Storefront } from './storefront.ts';
import { findLocation } from './channel-settings.ts';
import { normaliseEmail, normalisePhone } from '../customers/contacts.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Online ordering payments (spec 3 "Online ordering payment creation" and "Verification"). The order
 * is priced server-side from the published online menu through the one pricing function, stored as a
 * `Pending` transaction of channel `online_ordering` (`table_qr` for a table's order), then its payment starts on the provider the
 * rules choose: free and test-mode orders complete without a provider; platform-a (integration
 * active) gets a payment order paid later through `payment/process`; card-a gets a card intent, or
 * for the local debit scheme an intent (customer full name required) or a hosted checkout; the
 * legacy card-b hosted checkout when the default provider is overridden away from card-a.
 */
export interface OnlinePaymentDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly providers: PaymentProviders;
  readonly log: Logger;
  readonly now: () => Date;
  /** The public storefront a card-a hosted checkout sends the customer back to (`ONLINE_ORDERING_PUBLIC_URL`). */
  readonly checkoutReturnUrl?: string;
}

export interface OnlinePaymentInput {
  readonly lines: readonly QuoteLineInput[];
  readonly payment_method?: 'card' | 'local_debit';
  readonly customer?: { readonly name?: string; readonly email?: string; readonly phone?: string };
  /** A timeslot start (UTC ISO) from available-timeslots; absent = as soon as possible (the location must be open). */
  readonly scheduled_for?: string;
  readonly dining_option?: 'Pickup' | 'Delivery';
  /** Where a Delivery order goes (required with it, refused with any other option). */
  readonly delivery_address?: DeliveryAddress;
  /** Cents. */
  readonly tip_amount?: number;
  /** Table QR ordering: the open session of the scanned table at this location. */
  readonly table_session_id?: string;
}

export const LOCAL_DEBIT_NAME_REQUIRED = 'A customer full name is required to pay with the local debit scheme.';
export const ORDERING_CLOSED = 'The restaurant is not taking orders right now.';
export const TIMESLOT_UNAVAILABLE = 'The chosen timeslot is not available.';
export const TIPS_NOT_ACCEPTED = 'This restaurant does not accept tips.';
export const TABLE_ORDER_NOT_SCHEDULED = 'A table order is served now; it cannot be scheduled.';
export const TABLE_ORDER_DINING_OPTION = 'A table order is served at its table; it takes no dining option.';
/** The dining option stored on a table QR order. */
export const TABLE_DINING_OPTION = 'Dine In';
/**
 * A storefront order still `Pending` this long after it was stored was orphaned by its request (the
 * process died before or while starting its payment): longer than any start takes (a provider call
 * gives up after 15 s; the start lock is held 30 s without renewal).
 */
export const ORPHANED_START_MS = 60_000;
/** Farther than this from now, a `scheduled_for` is no slot. */
const SCHEDULE_HORIZON_MS = 400 * 86_400_000;

const captureDeps = (deps: OnlinePaymentDeps, sf: Storefront, tenantDatabase: string): CaptureDeps => ({
  tdb: sf.tdb,
  tenantDatabase,
  redis: deps.redis,
  providers: deps.providers,
  log: deps.log,
  now: deps.now,
});

async function tenantDatabaseOf(db: CentralDb, merchantId: string): Promise<string> {
  return (await db.selectFrom('merchants').select('tenant_database').where('id', '=', merchantId).executeTakeFirstOrThrow()).tenant_database;
}

/** Default storefront address when `ONLINE_ORDERING_PUBLIC_URL` is unset (development). */
export const DEFAULT_STOREFRONT_URL = 'http://localhost:3000';
const returnBase = (deps: OnlinePaymentDeps) => (deps.checkoutReturnUrl ?? DEFAULT_STOREFRONT_URL).replace(/\/+$/, '');

/** The table QR fields of a snapshot, kept when the provider's snapshot replaces it. */
function tableQrOf(snapshot: Record<string, unknown>): Record<string, unknown> {
  return typeof snapshot.table_session_id === 'string' ? { channel: snapshot.channel, table_session_id: snapshot.table_session_id } : {};
}

export const CUSTOMER_PHONE_INVALID = 'The customer phone must be a phone number.';

/** The customer's phone in E.164, or 422 on `customer.phone` (a number the restaurant cannot call). */
function phoneOf(raw: string, country: string): string {
  try {
    return normalisePhone(raw, country, 'customer.phone');
  } catch {
    throw errors.field('customer.phone', CUSTOMER_PHONE_INVALID);
  }
}

/** A full name: two words at least (first and last name). */
function isFullName(name: string | undefined): boolean {
  return typeof name === 'string' && name.trim().split(/\s+/).filter(Boolean).length >= 2;
}

export interface OnlinePaymentRequest {
  /** The signed-in customer's id (the order's customer_id), or null for a guest. */
  readonly customerId?: string | null;
  /**
   * Called once the location is known to take this order, before anything else is read or written
   * (the route's throttle: requests for no restaurant do not count).
   */
  readonly admit?: (locationId: string) => Promise<void>;
  /** The request's `Idempotency-Key`: a retry answers the order the first request created. */
  readonly requestKey?: string | null;
  /**
   * Called before an order that would hold something while unpaid is stored (tracked stock, or a place in
   * a slot of limited capacity), with the table session of a table order (else null): refuses (429) a
   * client that holds too much already. The place it takes counts; `release()` gives it back when the
   * order ends up holding nothing or is not stored.
   */
  readonly admitHold?: (locationId: string, tableSessionId: string | null) => Promise<{ release(): Promise<void> }>;
}

export async function createOnlinePayment(deps: OnlinePaymentDeps, slug: string, locationId: string, input: OnlinePaymentInput, request: OnlinePaymentRequest = {}) {
  const customerId = request.customerId ?? null;
  const requestKey = request.requestKey ?? null;
  const admit = request.admit;
  const now = deps.now();
  const sf = await storefrontOf(deps.db, slug);
  const tableQr = input.table_session_id !== undefined;
  // A table order follows the table QR setting, not online ordering's switch, hours or snooze (the
  // guest is seated in a location that serves them); a pickup or delivery order follows online ordering.
  const { loc, view } = tableQr ? await tableQrLocation(sf, locationId) : await onlineLocation(sf, locationId);
  if (admit) await admit(loc.id);
  // A retry of a request (its `Idempotency-Key`) answers the order the first one created, without
  // checking again what may have changed since (hours, a slot now full, stock now held by that order).
  const reqHash = requestKey === null ? null : requestHash(loc.id, customerId, input);
  if (requestKey !== null) {
    const earlier = await replayRequest(deps, sf, slug, loc.id, requestKey, reqHash!, input);
    if (earlier) return earlier;
  }
  let scheduled: Date | null = null;
  if (tableQr) {
    if (input.scheduled_for !== undefined) throw errors.field('scheduled_for', TABLE_ORDER_NOT_SCHEDULED);
    if (input.dining_option !== undefined) throw errors.field('dining_option', TABLE_ORDER_DINING_OPTION);
  } else if (input.scheduled_for !== undefined) {
    scheduled = new Date(input.scheduled_for);
    if (Number.isNaN(scheduled.getTime())) throw errors.field('scheduled_for', 'The scheduled for field must be a date-time.');
    // Never a slot (slots are at most a year ahead), and a date this far cannot be shifted into a zone.
    if (Math.abs(scheduled.getTime() - now.getTime()) > SCHEDULE_HORIZON_MS) throw errors.field('scheduled_for', TIMESLOT_UNAVAILABLE);
    const { formatInTimeZone } = await import('date-fns-tz');
    const day = formatInTimeZone(scheduled, loc.timezone, 'yyyy-MM-dd');
    const offered = await availableTimeslots(deps.db, slug, loc.id, day, now).catch(() => ({ slots: [] as { start: string }[] }));
    // A slot past midnight of a crossing window belongs to the previous business day.
    // The calendar day before (`scheduled - 24 h` read in the zone missed it on a 23-hour day).
    const previous = await availableTimeslots(deps.db, slug, loc.id, addLocalDays(day, -1), now).catch(() => ({ slots: [] as { start: string }[] }));
    if (![...offered.slots, ...previous.slots].some((s) => s.start === scheduled!.toISOString())) throw errors.field('scheduled_for', TIMESLOT_UNAVAILABLE);
  } else if (!view!.open_now) {
    throw errors.businessRule(ORDERING_CLOSED, { reason: 'ordering_closed' });
  }
  if (input.table_session_id !== undefined) await requireOpenTableSession(sf, loc.id, input.table_session_id, now);
  const { settings: online } = await readSettings(sf.tdb, loc.id, 'online');
  // A location may take orders only from signed-in customers (its online or its table QR setting).
  const guestsAllowed = tableQr ? (await readSettings(sf.tdb, loc.id, 'qr_ordering')).settings.allow_guest_checkout : online.allow_guest_checkout;
  if (customerId === null && !guestsAllowed) throw errors.unauthenticated();
  if ((input.tip_amount ?? 0) > 0 && !tableQr && !online.allow_tips) throw errors.field('tip_amount', TIPS_NOT_ACCEPTED);
  const method = input.payment_method ?? 'card';
  const { settings } = await readSettings(sf.tdb, loc.id, 'online_ordering');
  // A table QR order is served at its table: it is Dine In, the online channel's pickup and delivery do not apply.
  const diningOption = tableQr ? TABLE_DINING_OPTION : (input.dining_option ?? 'Pickup');
  const diningRefused = tableQr ? null : diningOptionRefusal(diningOption as 'Pickup' | 'Delivery', settings);
  if (diningRefused) throw errors.field('dining_option', diningRefused);
  const addressRefused = deliveryAddressRefusal(diningOption, input.delivery_address);
  if (addressRefused) throw errors.field('delivery_address', addressRefused);
  const deliveryAddress = input.delivery_address && diningOption === 'Delivery' ? normaliseDeliveryAddress(input.delivery_address) : null;
  // Stored as customer records keep them (lower-case e-mail, E.164 phone read in the location's country),
  // so erasing that customer finds the guest orders placed with the same contact.
  const email = input.customer?.email?.trim() ? normaliseEmail(input.customer.email, 'customer.email') : null;
  const phone = input.customer?.phone?.trim() ? phoneOf(input.customer.phone, loc.country) : null;
  // A table order is priced on the table QR channel: its items and its offers.
  const quote = await quoteBasket({ tdb: sf.tdb, redis: deps.redis, merchantId: sf.merchant.id, now }, { locationId: loc.id, channel: tableQr ? 'qr_ordering' : 'online_ordering' }, input.lines);
  if (quote.total < settings.minimum_order) {
    throw errors.businessRule(`The minimum order is ${(settings.minimum_order / 100).toFixed(2)}.`, { reason: 'minimum_order' });
  }
  const location = await sf.tdb.selectFrom('locations').select('payment_settings').where('id', '=', loc.id).executeTakeFirstOrThrow();
  const pay = readPaymentSettings(location.payment_settings);
  const stamped = stampPaymentProvider('online_ordering', null, deps.providers.defaults);
  const id = Bun.randomUUIDv7();
  // No device online: the transaction id stands in for it, so two orders in one millisecond never share a key.
  const key = mintIdempotencyKey(`online-${id}`, now.getTime());
  const tip = input.tip_amount ?? 0;
  // Spec 3 "Online ordering payment creation", in its order: a free or test-mode order gets the synthetic
  // snapshot (rule 1); only then does a card-a payment by the local debit scheme need a full name (rule 2).
  // Another provider (an active platform-a overrides at payment time) takes the order without one.
  if (method === 'local_debit' && settings.local_debit_intent && !isFullName(input.customer?.name) && quote.total + tip > 0 && !pay.test_mode) {
    const provider = onlinePaymentProvider(stamped, { platformAActive: pay.platform_a_active, registerBActive: await registerBIntegrated(deps.db, sf.merchant.id) });
    if (provider === 'card-a') throw errors.field('customer.name', LOCAL_DEBIT_NAME_REQUIRED);
  }
  const tenantDatabase = await tenantDatabaseOf(deps.db, sf.merchant.id);
  // Tracked stock and a place in a slot of limited capacity are held 15 minutes by an unpaid order: a
  // client (a table session) holds only so much.
  const slotHold = scheduled !== null && settings.slot_capacity > 0;
  const holds = slotHold || (await tracksStock(sf.tdb, loc.id, quote.lines.map((l) => l.item_id)));
  const holdCounter = request.admitHold && holds ? await request.admitHold(loc.id, input.table_session_id ?? null) : null;
  let held = slotHold;

  try {
  await withWriteRetry(() =>
    sf.tdb.transaction().execute(async (tx) => {
      // The slot's last places: one order at a time counts them and takes one (held while it is paid).
      if (scheduled && settings.slot_capacity > 0) {
        await sql`select pg_advisory_xact_lock(hashtextextended(${`slot:${loc.id}:${scheduled.toISOString()}`}, 0))`.execute(tx);
        const taken = (await slotUsage(tx, loc.id, scheduled, scheduled, now)).get(capacitySlotOf(scheduled).getTime()) ?? 0;
        if (taken >= settings.slot_capacity) throw errors.field('scheduled_for', TIMESLOT_UNAVAILABLE);
      }
      const orderNo = await nextCounter(tx, loc.id, 'order_no');
      await tx
        .insertInto('transactions')
        .values({
          id,
          location_id: loc.id,
          device_id: null,
          // A table order is a table QR order wherever the channel is read (filters, stats, the register's stream).
          channel: tableQr ? 'table_qr' : 'online_ordering',
          order_no: orderNo,
          status: 'Pending',
          order_status: null,
          payment_provider: stamped,
          // capturePayment binds the order to the snapshot's table session (spec 3 "verify (online)").
          payment_snapshot: JSON.stringify(input.table_session_id ? { idempotency_key: key, channel: 'table_qr', table_session_id: input.table_session_id } : { idempotency_key: key }),
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
          offers: JSON.stringify(quote.offers),
          menu_version: quote.menu_version,
          is_test: pay.test_mode,
          customer_id: customerId,
          loyalty_token: null,
          customer_name: input.customer?.name?.trim() || null,
          // How the restaurant reaches the customer (a Delivery courier, a pickup that is late).
          customer_email: email,
          customer_phone: phone,
          dining_option: diningOption,
          delivery_address: deliveryAddress === null ? null : JSON.stringify(deliveryAddress),
          scheduled_for: scheduled,
          cart_session_id: null,
          request_key: requestKey,
          request_hash: reqHash,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await insertQuotedLines(tx, id, quote.lines);
      held = (await holdOrderStock(tx, { transactionId: id, locationId: loc.id, lines: quote.lines, now })) || slotHold;
    }),
  );
  // The place taken before the order was stored counts only when the order holds something.
  if (!held) await holdCounter?.release();
  } catch (e) {
    await holdCounter?.release();
    // The same request sent twice at once: the first one stored its order; this one answers as a retry.
    if (requestKey !== null && isUniqueViolation(e, 'transactions_location_request_key')) {
      const earlier = await replayRequest(deps, sf, slug, loc.id, requestKey, reqHash!, input);
      if (earlier) return earlier;
    }
    throw e;
  }
  return startStoredPayment(deps, sf, slug, loc.id, id, { method, localDebitCheckout: method === 'local_debit' && !settings.local_debit_intent, tenantDatabase });
}

/**
 * Starts the payment of an order stored `Pending` (spec 3 "Online ordering payment creation" rules),
 * one start of the order at a time (`withPaymentStartLock`): a request resuming an order whose first
 * request died meets a first request that is merely slow in turn, never beside it. An order no longer
 * `Pending` when the lock is taken (the other start finished) answers as a retry does.
 */
async function startStoredPayment(deps: OnlinePaymentDeps, sf: Storefront, slug: string, locationId: string, id: string, o: { method: 'card' | 'local_debit'; localDebitCheckout: boolean; tenantDatabase: string }) {
  return withPaymentStartLock(deps, id, async () => {
  const t = await loadTransaction(sf.tdb, id);
  if (t.status !== 'Pending' || t.payment_snapshot.is_free === true) return answerStarted(deps, slug, locationId, t, o.method);
  const key = t.idempotency_key;
  const tenantDatabase = o.tenantDatabase;
  const method = o.method;
  const loc = { id: locationId };
  const location = await sf.tdb.selectFrom('locations').select('payment_settings').where('id', '=', loc.id).executeTakeFirstOrThrow();
  const pay = readPaymentSettings(location.payment_settings);
  // The provider stamped when the order was stored (a resumed order keeps it).
  const stamped = t.payment_provider as PaymentProvider;
  const base = { transaction_id: t.id, order_no: t.order_no, total: t.total, currency: deps.providers.currency };

  // Rule 1: free, or a location in payment test mode (as the order was stored): a synthetic snapshot, verification after the response.
  if (t.total === 0 || t.is_test) {
    await sf.tdb.updateTable('transactions').set({ payment_snapshot: JSON.stringify({ ...tableQrOf(t.payment_snapshot), idempotency_key: key, id: `free_${t.id}`, is_free: true }), is_free: t.total === 0 }).where('id', '=', t.id).execute();
    setTimeout(() => {
      capturePayment(captureDeps(deps, sf, tenantDatabase), t.id, { kind: 'free' }).catch((e) => deps.log.error('online free-order verification failed', { transaction_id: t.id, err: e }));
    }, 0);
    return { ...base, provider: null, payment: { id: `free_${t.id}`, is_free: true } };
  }

  const provider: PaymentProvider = onlinePaymentProvider(stamped, { platformAActive: pay.platform_a_active, registerBActive: await registerBIntegrated(deps.db, sf.merchant.id) });
  let snapshot: Record<string, unknown>;
  let payment: Record<string, unknown>;
  try {
    switch (provider) {
      case 'platform-a': {
        // A payment order: the storefront takes the card and sends its source to `payment/process`.
        if (!pay.platform_a_location_id) throw errors.businessRule('platform-a location is not configured for this location.', { reason: 'platform_a_not_configured' });
        snapshot = { provider, idempotency_key: key, platform_location_id: pay.platform_a_location_id };
        payment = { success: true, amount: t.total, platform_location_id: pay.platform_a_location_id };
        break;
      }
      case 'card-a': {
        ({ snapshot, payment } = await startCardA(deps, t, slug, loc.id, method, o.localDebitCheckout));
        break;
      }
      case 'card-b': {
        if (!deps.providers.cardB) notConfigured('card-b');
        const order = await deps.providers.cardB.createOrder({
          amount: t.total,
          customerTrns: `Order ${t.order_no}`,
          merchantTrns: String(t.order_no),
          tags: [loc.id, 'online_ordering'],
          // The redirect is card-b's own checkout page; it sends the customer back per its payment source.
        });
        // The redirect is kept so that a retried request (its Idempotency-Key) answers it again.
        snapshot = { provider, idempotency_key: key, orderCode: order.orderCode, redirectUrl: order.redirectUrl };
        payment = { orderCode: order.orderCode, redirectUrl: order.redirectUrl };
        break;
      }
    }
  } catch (e) {
    // Nothing can be paid yet: the storefront never got the payment's details (secret, redirect, order).
    // The order goes, so a refused request leaves nothing behind.
    await discardUnstarted(sf.tdb, t.id);
    if (e instanceof ProviderError) {
      deps.log.warn('online payment failed to start', { transaction_id: t.id, provider, err: e });
      providerFailure(e);
    }
    throw e;
  }
  await sf.tdb.transaction().execute(async (tx) => {
    const cur = await tx.selectFrom('transactions').select('status').where('id', '=', t.id).forUpdate().executeTakeFirstOrThrow();
    const d = paymentTransition(cur.status, { kind: 'start' });
    if (d.kind !== 'accepted') return;
    await tx.updateTable('transactions').set({ status: d.next, payment_snapshot: JSON.stringify({ ...tableQrOf(t.payment_snapshot), ...snapshot }), updated_at: deps.now() }).where('id', '=', t.id).execute();
  });
  return { ...base, provider, payment };
  });
}

/**
 * Starts the card-a payment of an order: a hosted checkout session (`checkout`) or an intent. Sent with
 * the order's idempotency key, so sending it again with the same order answers card-a's first answer
 * (a retried storefront request gets the same intent and secret, never a second payment).
 */
async function startCardA(deps: OnlinePaymentDeps, t: TransactionRow, slug: string, locationId: string, method: 'card' | 'local_debit', checkout: boolean) {
  if (!deps.providers.cardA) notConfigured('card-a');
  const key = t.idempotency_key;
  const metadata = { location_id: locationId, transaction_id: t.id, idempotency_key: key, order_no: String(t.order_no), channel: 'online_ordering' };
  if (checkout) {
    const cs = await deps.providers.cardA.createCheckoutSession({
      amount: t.total,
      currency: deps.providers.currency.toLowerCase(),
      productName: `Order ${t.order_no}`,
      successUrl: `${returnBase(deps)}/${slug}/${locationId}?transaction=${t.id}`,
      cancelUrl: `${returnBase(deps)}/${slug}/${locationId}?transaction=${t.id}&cancelled=1`,
      metadata,
      idempotencyKey: key,
    });
    // No intent yet (card-a creates it when the customer pays): the session id leads to it.
    return { snapshot: { provider: 'card-a', idempotency_key: key, sessionId: cs.id, id: cs.payment_intent } as Record<string, unknown>, payment: { id: cs.id, url: cs.url } as Record<string, unknown> };
  }
  const pi = await deps.providers.cardA.createPaymentIntent({
    amount: t.total,
    currency: deps.providers.currency.toLowerCase(),
    paymentMethodTypes: [method === 'local_debit' ? 'local_debit' : 'card'],
    metadata,
    idempotencyKey: key,
  });
  return {
    snapshot: { provider: 'card-a', idempotency_key: key, id: pi.id } as Record<string, unknown>,
    payment: { id: pi.id, client_secret: pi.client_secret, amount: pi.amount, created: pi.created, status: pi.status } as Record<string, unknown>,
  };
}

/**
 * The answer to a retried storefront request (the same `Idempotency-Key` at the location): the order
 * the first request created, with its payment as that request answered it. null when the key is new.
 * The key with another body (or another customer) is 409 `idempotency_key_reused`; while the first
 * request has not started its payment yet, 409 `request_in_progress`, and once that order is older than
 * `ORPHANED_START_MS` (its request died) the retry starts its payment.
 */
async function replayRequest(deps: OnlinePaymentDeps, sf: Storefront, slug: string, locationId: string, key: string, hash: string, input: OnlinePaymentInput) {
  const row = await sf.tdb.selectFrom('transactions').select(['id', 'request_hash']).where('location_id', '=', locationId).where('request_key', '=', key).executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== hash) throw errors.conflict(REQUEST_KEY_REUSED, { reason: 'idempotency_key_reused' });
  const t = await loadTransaction(sf.tdb, row.id);
  const method = input.payment_method ?? 'card';
  // An order left `Pending` longer than any start takes: the request that stored it died before its
  // payment started (or while it ran). The retry starts it for that same order.
  if (t.status === 'Pending' && t.payment_snapshot.is_free !== true && deps.now().getTime() - t.created_at.getTime() >= ORPHANED_START_MS) {
    const { settings } = await readSettings(sf.tdb, locationId, 'online_ordering');
    deps.log.warn('online payment: resuming an order whose first request never started its payment', { transaction_id: t.id });
    return startStoredPayment(deps, sf, slug, locationId, t.id, { method, localDebitCheckout: method === 'local_debit' && !settings.local_debit_intent, tenantDatabase: await tenantDatabaseOf(deps.db, sf.merchant.id) });
  }
  return answerStarted(deps, slug, locationId, t, method);
}

/**
 * The answer of an order whose payment started, as its first request answered it. 409
 * `request_in_progress` while it has not started yet.
 */
async function answerStarted(deps: OnlinePaymentDeps, slug: string, locationId: string, t: TransactionRow, method: 'card' | 'local_debit') {
  const base = { transaction_id: t.id, order_no: t.order_no, total: t.total, currency: deps.providers.currency };
  const s = t.payment_snapshot;
  if (s.is_free === true) return { ...base, provider: null, payment: { id: `free_${t.id}`, is_free: true } };
  if (t.status === 'Pending' || typeof s.provider !== 'string') throw errors.conflict(REQUEST_IN_PROGRESS, { reason: 'request_in_progress' });
  switch (s.provider as PaymentProvider) {
    case 'platform-a':
      return { ...base, provider: 'platform-a' as const, payment: { success: true, amount: t.total, platform_location_id: String(s.platform_location_id) } };
    case 'card-b':
      return { ...base, provider: 'card-b' as const, payment: { orderCode: String(s.orderCode), redirectUrl: String(s.redirectUrl) } };
    case 'card-a': {
      const started = await startCardA(deps, t, slug, locationId, method, typeof s.sessionId === 'string').catch(providerFailure);
      return { ...base, provider: 'card-a' as const, payment: started.payment };
    }
  }
  throw errors.conflict(REQUEST_IN_PROGRESS, { reason: 'request_in_progress' });
}

async function onlineTransaction(tdb: TenantDb, locationId: string, transactionId: string): Promise<TransactionRow> {
  const row = isUuid(transactionId)
    ? await tdb.selectFrom('transactions').select('id').where('id', '=', transactionId).where('location_id', '=', locationId).where('channel', 'in', ['online_ordering', 'table_qr']).executeTakeFirst()
    : undefined;
  if (!row) throw errors.notFound('transaction');
  return loadTransaction(tdb, row.id);
}

const verifiedView = (t: TransactionRow) => ({ transaction_id: t.id, order_no: t.order_no, status: t.status, receipt_no: t.receipt_no, total: t.total });

/**
 * Verification: free or test mode completes; platform-a (paid through `payment/process`) and card-a
 * (the checkout session's intent, or the intent) are asked at the provider by the capture; the legacy
 * card-b path reads the order's transactions by `orderCode` and captures a pre-authorisation.
 */
export async function verifyOnlinePayment(deps: OnlinePaymentDeps, slug: string, locationId: string, transactionId: string, admit?: (transactionId: string) => Promise<void>) {
  const sf = await storefrontOf(deps.db, slug);
  // An order placed while the location took online orders is verified even after it stopped taking them.
  const loc = await findLocation(sf.tdb, locationId);
  const t = await onlineTransaction(sf.tdb, loc.id, transactionId);
  // The route's throttle, per client and this order (a request for no order costs nothing).
  if (admit) await admit(t.id);
  if (t.status === 'Complete') return verifiedView(t);
  const capture = captureDeps(deps, sf, await tenantDatabaseOf(deps.db, sf.merchant.id));
  // One provider check of the order at a time: verifies sent meanwhile (a polling page, a script)
  // answer what that check stored, read after it ended; a verify with none in flight asks anew.
  const read = async () => verifiedView(await loadTransaction(sf.tdb, t.id));
  return providerCheckFlight(deps.redis, onlineVerifyFlight(t.id), deps.log, async () => {
    // Re-read: a check that ended just before this one took the flight may have completed the order.
    const current = await loadTransaction(sf.tdb, t.id);
    await settleOnlinePayment(deps, sf.tdb, capture, current);
    return read();
  }, read);
}

export interface SettleOptions {
  /** The storefront's verify (the customer waiting for the answer), not the back office or a sweep. */
  readonly customerPresent: boolean;
}

/**
 * Settles an online order (online ordering, table QR) from what its provider says, as the storefront's
 * verify does; the back office's verify and the stale payment sweep settle online orders with it too,
 * so a card charged whose answer was lost is found the same way whoever asks: free completes; card-b
 * reads the order's transactions by `orderCode` and captures a pre-authorisation first; card-a asks the
 * intent; platform-a asks the payment, and sends a lost attempt again as it was (its own key and card)
 * only while the customer is there (the storefront): a request that never reached the provider would
 * otherwise charge the card minutes or hours after the customer was told it failed.
 */
export async function settleOnlinePayment(deps: OnlinePaymentDeps, tdb: TenantDb, capture: CaptureDeps, t: TransactionRow, opts: SettleOptions = { customerPresent: true }): Promise<void> {
  if (t.status === 'Complete') return;
  if (t.payment_snapshot.is_free === true) {
    await capturePayment(capture, t.id, { kind: 'free' });
    return;
  }
  const provider = runningProvider(t);
  if (provider === 'card-b') {
    if (typeof t.payment_snapshot.orderCode === 'string') await verifyCardBOnline(capture, t);
  } else if (provider === 'card-a') {
    await capturePayment(capture, t.id, { kind: 'poll' });
  } else if (provider === 'platform-a' && (typeof t.payment_snapshot.payment_id === 'string' || t.payment_snapshot.platform_a_attempt !== undefined)) {
    await verifyPlatformA(deps, tdb, capture, t.id, opts.customerPresent);
  }
}

/** Asks platform-a how the order's payment stands and captures with what it says. */
async function capturePlatformA(deps: OnlinePaymentDeps, capture: CaptureDeps, t: TransactionRow) {
  if (!deps.providers.platformA) notConfigured('platform-a');
  const p = await deps.providers.platformA.getPayment(String(t.payment_snapshot.payment_id)).catch(providerFailure);
  // A failed or cancelled payment took no money: the order is Unpaid and takes another card.
  const outcome = p.status === 'COMPLETED' ? 'succeeded' : p.status === 'APPROVED' ? 'authorised' : p.status === 'FAILED' || p.status === 'CANCELED' ? 'failed' : null;
  if (outcome) await capturePayment(capture, t.id, { kind: 'webhook', outcome, data: { payment_id: p.id, payment_status: p.status } });
}

/**
 * `POST /online-ordering/payment/process`: pays a platform-a payment order with the card source the
 * storefront tokenised, then captures with platform-a's answer. The transaction names its merchant
 * through the slug; a transaction not of platform-a is 409. One attempt runs at a time per order (two
 * cards sent together are not both charged); a payment already made that did not fail is captured,
 * never paid again; after a decline or a failed payment, another card is a new attempt.
 */
export async function processPlatformAPayment(
  deps: OnlinePaymentDeps,
  input: { slug: string; location_id: string; transaction_id: string; source_id: string },
  /** The route's throttle of card attempts, asked once the order is found and still to be paid (throws to refuse). */
  admit: (transactionId: string) => Promise<void> = async () => {},
) {
  const sf = await storefrontOf(deps.db, input.slug);
  // An order placed while the location took online orders can be paid after it stopped taking new ones.
  const loc = await findLocation(sf.tdb, input.location_id);
  const found = await onlineTransaction(sf.tdb, loc.id, input.transaction_id);
  if (found.payment_snapshot.provider !== 'platform-a') throw errors.conflict('This order is not paid through platform-a.', { reason: 'not_platform_a' });
  if (found.status === 'Complete') return verifiedView(found);
  await admit(found.id);
  const platformA = deps.providers.platformA;
  if (!platformA) notConfigured('platform-a');
  const capture = captureDeps(deps, sf, await tenantDatabaseOf(deps.db, sf.merchant.id));
  return withPaymentStartLock(deps, found.id, async () => {
    const t = await loadTransaction(sf.tdb, found.id);
    if (t.status === 'Complete') return verifiedView(t);
    const allowed = paymentTransition(t.status, { kind: 'start' });
    if (allowed.kind === 'refused') throw errors.conflict(allowed.message, { reason: allowed.reason });
    const previous = typeof t.payment_snapshot.payment_id === 'string' ? t.payment_snapshot.payment_id : null;
    const paid = previous ? await platformA.getPayment(previous).catch(providerFailure) : null;
    if (!paid || paid.status === 'FAILED' || paid.status === 'CANCELED') {
      const { payment_id: _failed, platform_a_attempt: inFlight, ...snapshot } = t.payment_snapshot;
      const attempt = (a: PlatformAAttempt) => sendPlatformAAttempt(deps, sf.tdb, t, snapshot, a);
      const lost = readAttempt(inFlight);
      const earlier = lost && lost.source_id !== input.source_id ? await attempt(lost) : null;
      if (earlier === 'paid') deps.log.warn('platform-a: an attempt whose answer was lost had paid the order; the card sent now is not charged', { transaction_id: t.id });
      else {
        const resent = lost && lost.source_id === input.source_id ? lost : null;
        // A new card: the order's stock is held again first when its hold stopped counting (nothing is
        // charged when another checkout has the units now). A lost attempt sent again is not refused: it
        // may have been charged already.
        if (!resent) await reopenForCard(sf.tdb, t.id, deps.now());
        const now = await attempt(resent ?? { key: platformAAttemptKey(t.id, input.source_id), source_id: input.source_id });
        if (now !== 'paid') providerFailure(now);
      }
    }
    await capturePlatformA(deps, capture, await loadTransaction(sf.tdb, t.id));
    return verifiedView(await loadTransaction(sf.tdb, t.id));
  });
}

/**
 * Before a new card is charged: the order's stock hold is taken again when it stopped counting (after a
 * failed payment, or run out and cleared by another checkout), and the payment is open again (`Awaiting
 * Payment`, which makes the hold count), in one transaction: no other checkout takes the units between
 * the check and the charge. 422 `insufficient_stock` when another checkout has them now.
 */
async function reopenForCard(tdb: TenantDb, id: string, now: Date): Promise<void> {
  await tdb.transaction().execute(async (tx) => {
    const cur = await tx.selectFrom('transactions').select(['status', 'cart_session_id', 'location_id']).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    const d = paymentTransition(cur.status, { kind: 'start' });
    if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
    await renewOrderHold(tx, { transactionId: id, locationId: cur.location_id, status: cur.status, holdsStock: cur.cart_session_id !== null, now });
    if (d.kind === 'accepted' && d.next !== cur.status) await tx.updateTable('transactions').set({ status: d.next, updated_at: now }).where('id', '=', id).execute();
  });
}

/** One card attempt at platform-a: its provider key and the card source. */
type PlatformAAttempt = { readonly key: string; readonly source_id: string };

/**
 * Sends one card attempt, recorded in the snapshot before the provider is called so an answer lost on
 * the way is known. Paid: the payment's id replaces it; declined: it is gone (nothing was taken) and the
 * decline is answered; anything else: it stays, to be sent again as it was (the provider answers its
 * first answer) before any other card, and the failure is thrown.
 */
async function sendPlatformAAttempt(deps: OnlinePaymentDeps, tdb: TenantDb, t: TransactionRow, snapshot: Record<string, unknown>, a: PlatformAAttempt): Promise<'paid' | ProviderError> {
  await saveSnapshot(tdb, t.id, { ...snapshot, platform_a_attempt: a }, deps.now());
  try {
    const p = await deps.providers.platformA!.createPayment({ idempotencyKey: a.key, sourceId: a.source_id, amount: t.total, currency: deps.providers.currency, referenceId: t.id, locationId: String(t.payment_snapshot.platform_location_id ?? '') });
    await saveSnapshot(tdb, t.id, { ...snapshot, payment_id: p.id }, deps.now());
    return 'paid';
  } catch (e) {
    if (e instanceof ProviderError && e.status === 402) {
      await saveSnapshot(tdb, t.id, snapshot, deps.now());
      return e;
    }
    return providerFailure(e);
  }
}

/**
 * Verification of a platform-a order, under the order's start lock (it takes turns with `payment/process`):
 * a card attempt whose answer was lost is sent again as it was, so a card charged meanwhile is found and
 * captured (never for an order that can no longer start a payment: a Cancelled one); otherwise the
 * recorded payment is asked at platform-a and captured with its answer.
 */
async function verifyPlatformA(deps: OnlinePaymentDeps, tdb: TenantDb, capture: CaptureDeps, id: string, customerPresent = true): Promise<void> {
  await withPaymentStartLock(deps, id, async () => {
    const t = await loadTransaction(tdb, id);
    if (t.status === 'Complete') return;
    const lost = readAttempt(t.payment_snapshot.platform_a_attempt);
    if (lost) {
      if (!customerPresent) return;
      if (paymentTransition(t.status, { kind: 'start' }).kind === 'refused') return;
      if (!deps.providers.platformA) notConfigured('platform-a');
      const { platform_a_attempt: _lost, payment_id: _failed, ...snapshot } = t.payment_snapshot;
      if ((await sendPlatformAAttempt(deps, tdb, t, snapshot, lost)) === 'paid') await capturePlatformA(deps, capture, await loadTransaction(tdb, id));
      return;
    }
    if (typeof t.payment_snapshot.payment_id === 'string') await capturePlatformA(deps, capture, t);
  });
}

/** The platform-a attempt in flight recorded in a snapshot (its provider key and card source), if any. */
function readAttempt(v: unknown): PlatformAAttempt | null {
  if (typeof v !== 'object' || v === null) return null;
  const a = v as Record<string, unknown>;
  return typeof a.key === 'string' && typeof a.source_id === 'string' ? { key: a.key, source_id: a.source_id } : null;
}

async function saveSnapshot(tdb: TenantDb, id: string, snapshot: Record<string, unknown>, now: Date): Promise<void> {
  await tdb.updateTable('transactions').set({ payment_snapshot: JSON.stringify(snapshot), updated_at: now }).where('id', '=', id).execute();
}

/**
 * The provider's idempotency key of one card attempt: the order and the card source, hashed to the
 * provider's 45 characters. A request resent with the same source gets the provider's first answer
 * (one charge); another card is another key (a key sent again with other data is refused).
 */
export function platformAAttemptKey(transactionId: string, sourceId: string): string {
  return `pa${createHash('sha256').update(`${transactionId}:${sourceId}`).digest('hex').slice(0, 43)}`;
}
