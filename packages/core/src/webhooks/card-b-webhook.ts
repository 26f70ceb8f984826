import type Redis from 'ioredis';
import { sql, type Transaction } from 'kysely';
import { bindTenant, type CentralDb, type CentralTables, type TenantDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import { terminalSaleCharge } from '@pos/domain';
import { capturePayment } from '../payments/capture-payment.ts';
import type { PaymentProviders } from '../payments/payment-providers.ts';
import { loadTransaction, type TransactionRow } from '../payments/transaction-records.ts';
import { verifyCardBOnline } from '../payments/card-b-online-verify.ts';
import { cardBDuplicateHash, forgetCardBDelivery, isCardBDuplicate } from './card-b-duplicates.ts';
import { acquireLock } from './redis-lock.ts';
import { tenantOfCardBAccount, tenantOfCardBSourceCode, tenantOfLocation, type WebhookTenant } from './tenant-resolution.ts';
import { applyCardBAccountEvent, CARD_B_ACCOUNT_CONNECTED, CARD_B_ACCOUNT_VERIFICATION, cardBEventTime } from './card-b-accounts.ts';
import { cardBClawback } from './card-b-clawback.ts';
import { markWebhook, storeCardBWebhook, type StoredWebhook, type WebhookLogStatus } from './webhook-log.ts';
import { parsePayload } from './payload.ts';

/** card-b event ids (spec 3 "Card-b events"). */
export const CARD_B_EVENTS: Readonly<Record<number, string>> = {
  1796: 'TRANSACTION_PAYMENT_CREATED',
  1797: 'TRANSACTION_REVERSAL_CREATED',
  1798: 'TRANSACTION_FAILED',
  1799: 'TRANSACTION_PRICE_CALCULATED',
  8193: 'ACCOUNT_CONNECTED',
  8194: 'ACCOUNT_VERIFICATION_STATUS_CHANGED',
};

/** A replay from the back office: the stored row is reused and duplicate detection is skipped. */
export interface ReplayOptions {
  readonly replayOf?: string;
  /**
   * The back office's replay: the merchant whose stored event this is. The event is resolved again from
   * its body; when that now names another merchant (a terminal, store or account moved since), nothing
   * is done and the row stays `failed` (`replayMismatch`), so one merchant can never act on another's records.
   */
  readonly replayFor?: string | null;
}

/** The error a replay records when its event now resolves to another merchant than the one replaying it. */
export const REPLAY_OTHER_MERCHANT = 'replay_resolves_to_another_merchant';

/** True when a back-office replay's event now belongs to another merchant (see `ReplayOptions.replayFor`). */
export function replayMismatch(opts: ReplayOptions, merchantId: string): boolean {
  return opts.replayFor !== undefined && opts.replayFor !== merchantId;
}

/** Online and kiosk webhook locks (spec 3 section 8): 30 s. */
export const WEBHOOK_PAYMENT_LOCK_MS = 30_000;

export interface WebhookDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly providers: PaymentProviders;
  readonly log: Logger;
  readonly now: () => Date;
  /** Commission the platform records per card-b terminal payment, in basis points of the amount. */
  readonly commissionBps: number;
  /** Commission rates of a paid service invoice (card-a `invoice.paid`), basis points of what was collected; 0 each when absent. */
  readonly invoiceCommission?: { readonly resellerBps: number; readonly collectionBps: number };
  /** Counts an outcome per provider (metrics); optional. */
  readonly count?: (provider: string, outcome: WebhookLogStatus | 'verified' | 'rejected') => void;
}

export interface CardBOutcome {
  readonly status: WebhookLogStatus;
  readonly logId: string | null;
  readonly occurrences: number | null;
}

type Data = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

/** Webhook `Amount` is major units (decimal): cents, or null when it is not a sum of money (NaN, 1e308, more than a safe integer of cents). */
export const majorToCents = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,10}(\.\d{1,4})?$/.test(v) ? Number(v) : NaN;
  const cents = Math.round(n * 100);
  return Number.isSafeInteger(cents) ? cents : null;
};

/**
 * Rule 4 / spec 3 section 6: `Tags[0]` (a location id), else the leading part of `MerchantTrns`
 * (`{locationId}:{orderNo}`), else the location whose physical source code is `SourceCode`.
 */
export async function resolveCardBTenant(db: CentralDb, data: Data): Promise<WebhookTenant | null> {
  const tags = Array.isArray(data.Tags) ? data.Tags : [];
  const tag0 = str(tags[0]);
  if (tag0) {
    const t = await tenantOfLocation(db, tag0);
    if (t) return t;
  }
  const merchantTrns = str(data.MerchantTrns);
  if (merchantTrns) {
    const t = await tenantOfLocation(db, merchantTrns.split(':')[0]!.trim());
    if (t) return t;
  }
  const source = str(data.SourceCode);
  return source ? tenantOfCardBSourceCode(db, source) : null;
}

/** The kiosk order number: `CustomerTrns` "Order 42", else `MerchantTrns` "{location}:42". */
export function orderNoOf(data: Data): number | null {
  const c = str(data.CustomerTrns)?.match(/(?:^|\s)(\d{1,9})\s*$/);
  if (c) return Number(c[1]);
  const m = str(data.MerchantTrns)?.match(/:(\d{1,9})$/);
  return m ? Number(m[1]) : null;
}

/**
 * A card-b webhook whose source address passed the allow-list (rules 1-6). Never throws: every
 * failure is logged with the event id and recorded on the stored event; the caller answers 2xx.
 */
export async function handleCardBWebhook(deps: WebhookDeps, raw: string, pathEventTypeId: string, opts: ReplayOptions = {}): Promise<CardBOutcome> {
  const payload = parsePayload(raw);
  const body: Data = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Data) : {};
  const data: Data = body.EventData && typeof body.EventData === 'object' && !Array.isArray(body.EventData) ? (body.EventData as Data) : {};
  const eventTypeId = Number(body.EventTypeId ?? pathEventTypeId);
  const eventType = CARD_B_EVENTS[eventTypeId] ?? null;
  const eventId = str(data.TransactionId) ?? str(body.MessageId);
  const stored: StoredWebhook | null = opts.replayOf ? { id: opts.replayOf, occurrences: 0 } : await storeCardBWebhook(deps.db, deps.log, {
    raw,
    payload,
    eventType,
    eventId,
    now: deps.now(),
    fields: {
      event_type_id: Number.isFinite(eventTypeId) ? eventTypeId : null,
      event_type: eventType,
      order_code: str(data.OrderCode),
      transaction_id: str(data.TransactionId),
      merchant_trns: str(data.MerchantTrns),
      tags: Array.isArray(data.Tags) ? data.Tags : [],
    },
  });
  const logId = stored?.id ?? null;
  const done = async (status: WebhookLogStatus, extra: { merchantId?: string | null; error?: string | null } = {}): Promise<CardBOutcome> => {
    // The same bytes again share the stored row (rule 1, `occurrences`): that row keeps the outcome of
    // the delivery that was processed (a failure stays failed, so it can still be replayed).
    if (!(status === 'duplicate' && (stored?.occurrences ?? 0) > 1)) await markWebhook(deps.db, deps.log, logId ?? undefined, status, extra);
    deps.count?.('card-b', status);
    return { status, logId, occurrences: stored?.occurrences ?? null };
  };
  let merchantId: string | undefined;
  // This delivery's duplicate mark (rule 3), taken back if its processing fails.
  let marked: { hash: string; at: number } | null = null;
  try {
    if (payload === null || !Object.keys(body).length) {
      deps.log.warn('card-b webhook body is not a JSON object', { webhook_log_id: logId });
      return await done('failed', { error: 'not_json' });
    }
    if (eventTypeId === 1799) {
      deps.log.debug('card-b price calculated (not handled)', { event_id: eventId });
      return await done('ignored');
    }
    if (eventTypeId === CARD_B_ACCOUNT_CONNECTED || eventTypeId === CARD_B_ACCOUNT_VERIFICATION) {
      // Not a payment: no duplicate detection (rule 3 hashes payment fields, all empty here), and the
      // tenant is the one whose payment profile holds the account (rule 4 otherwise).
      const account = str(data.ConnectedAccountId);
      const owner = account ? await tenantOfCardBAccount(deps.db, account) : null;
      if (!owner) {
        deps.log.warn('card-b webhook location_not_resolved', { event_id: eventId, event_type: eventType, account_id: account });
        return await done('location_not_resolved');
      }
      if (replayMismatch(opts, owner.merchantId)) return await done('failed', { error: REPLAY_OTHER_MERCHANT });
      merchantId = owner.merchantId;
      const r = await applyCardBAccountEvent(deps, owner, eventTypeId, account!, data, cardBEventTime(body, deps.now()));
      // The same bytes again (card-b's retry) that change nothing: a duplicate, so the shared row keeps its first outcome.
      return await done(r === 'ignored' && (stored?.occurrences ?? 0) > 1 ? 'duplicate' : r, { merchantId });
    }
    if (eventTypeId !== 1796 && eventTypeId !== 1797 && eventTypeId !== 1798) return await done('ignored');

    // Rule 3: duplicate detection over the seven fields.
    if (!opts.replayOf) {
      const mark = { hash: cardBDuplicateHash(data), at: deps.now().getTime() };
      if (await isCardBDuplicate(deps.redis, deps.log, mark.hash, mark.at)) return await done('duplicate');
      marked = mark;
    }

    // Rule 4: an event that resolves to no tenant is logged and dropped, never guessed.
    const tenant = await resolveCardBTenant(deps.db, data);
    if (!tenant) {
      deps.log.warn('card-b webhook location_not_resolved', { event_id: eventId, event_type: eventType });
      return await done('location_not_resolved');
    }
    if (replayMismatch(opts, tenant.merchantId)) return await done('failed', { error: REPLAY_OTHER_MERCHANT });
    merchantId = tenant.merchantId;
    if (eventTypeId === 1797) {
      const r = await reversal(deps, tenant, data, logId);
      if (r !== LEDGER_ROW_MISSING) return await done(r, { merchantId });
      // Stored failed in the reversal's own commit (a rerun by the payment's ledger row may already have
      // processed it since: not overwritten). Not a duplicate of anything if card-b sends it again.
      deps.log.warn('card-b reversal before its payment\'s ledger row; stored failed', { event_id: eventId, merchant_id: merchantId });
      if (marked) await forgetCardBDelivery(deps.redis, deps.log, marked.hash, marked.at);
      deps.count?.('card-b', 'failed');
      return { status: 'failed', logId, occurrences: stored?.occurrences ?? null };
    }
    if (eventTypeId === 1798) {
      // Not final: a 1796 may follow, so the transaction is left open for it.
      deps.log.info('card-b transaction failed (not final)', { event_id: eventId, merchant_id: merchantId });
      return await done('processed', { merchantId });
    }
    if (str(data.StatusId) !== 'F') return await done('ignored', { merchantId });
    return await done(await payment(deps, tenant, data), { merchantId });
  } catch (e) {
    deps.log.error('card-b webhook processing failed', { event_id: eventId, webhook_log_id: logId, err: e });
    if (marked) await forgetCardBDelivery(deps.redis, deps.log, marked.hash, marked.at);
    return done('failed', { error: e instanceof Error ? e.message : String(e), ...(merchantId ? { merchantId } : {}) });
  }
}

/** Rule 5: online (find by order code, verify) or kiosk (find by order number, capture with the webhook's data). */
async function payment(deps: WebhookDeps, tenant: WebhookTenant, data: Data): Promise<WebhookLogStatus> {
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const tags = Array.isArray(data.Tags) ? data.Tags : [];
  const online = str(tags[1]) === 'online_ordering';
  const eventId = str(data.TransactionId);
  let t: TransactionRow | undefined;
  if (online) {
    const orderCode = str(data.OrderCode);
    t = orderCode ? await tdb.selectFrom('transactions').selectAll().where(sql<string>`payment_snapshot->>'orderCode'`, '=', orderCode).executeTakeFirst() : undefined;
  } else {
    const orderNo = orderNoOf(data);
    t = orderNo === null ? undefined : await tdb.selectFrom('transactions').selectAll().where('location_id', '=', tenant.locationId).where('order_no', '=', orderNo).executeTakeFirst();
  }
  if (!t || t.payment_provider !== 'card-b') {
    // Spec 3 section 7: wrong tenant, deleted location or unknown key.
    deps.log.warn('transaction not found during a webhook', { provider: 'card-b', event_id: eventId, merchant_id: tenant.merchantId });
    throw new Error('transaction_not_found');
  }
  const lock = await acquireLock(deps.redis, `payment_processing_${online ? 'online' : 'kiosk'}_${t.idempotency_key}`, WEBHOOK_PAYMENT_LOCK_MS, WEBHOOK_PAYMENT_LOCK_MS, deps.log);
  try {
    const capture = { tdb, tenantDatabase: tenant.tenantDatabase, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now };
    const amount = majorToCents(data.Amount);
    if (online) {
      // Verified with the provider by its order code (a pre-authorisation is captured there first),
      // never believed from the webhook alone.
      const r = await verifyCardBOnline(capture, await loadTransaction(tdb, t.id));
      if (!r) deps.log.info('card-b online payment not paid at the provider yet', { event_id: eventId, transaction_id: t.id });
      // Whoever captured (this webhook, the return page or a poll), the paid payment has its ledger row.
      const paid = r?.status === 'Complete' && eventId ? await capturedPaymentOf(tdb, t.id, eventId) : null;
      if (paid) await recordCommission(deps, tenant.merchantId, paid, amount !== null && amount >= 0 ? amount : t.total);
      return 'processed';
    }
    // Captured with the webhook's data (rule 5), only when its amounts are this order's sale (see
    // `cardBSaleCharge`): logged otherwise, and left to the terminal session's poll.
    // Not this order's payment when it names another currency, or another terminal than its session's.
    const currency = str(data.CurrencyCode);
    if (currency !== null && currency !== deps.providers.currencyNumeric) {
      deps.log.error('card-b webhook currency is not the order\'s; not captured', { event_id: eventId, transaction_id: t.id, currency });
      throw new Error('currency_mismatch');
    }
    // Captured only from the terminal its session runs on. card-b webhooks carry no signature and every
    // connected account's events come here: a payment without a terminal (an e-commerce payment of any
    // account, naming this location and order number) or from another terminal is not the kiosk's sale.
    // The poll of the session (details route, cancel) still captures a sale this check would miss.
    const terminal = str(data.TerminalId);
    const sessionTerminal = typeof t.payment_snapshot.terminalId === 'string' ? t.payment_snapshot.terminalId : null;
    if (terminal === null || sessionTerminal === null || terminal !== sessionTerminal) {
      deps.log.error('card-b webhook terminal is not the order\'s session terminal; not captured', { event_id: eventId, transaction_id: t.id, terminal });
      throw new Error('terminal_mismatch');
    }
    const charge = cardBSaleCharge(data, t);
    if (typeof charge === 'string') {
      deps.log.error('card-b webhook amounts are not the order\'s sale; not captured', { event_id: eventId, transaction_id: t.id, reason: charge, amount, tip: data.TipAmount ?? null, total: t.total, tip_amount: t.tip_amount });
      throw new Error(charge);
    }
    const r = await capturePayment(capture, t.id, { kind: 'webhook', outcome: 'succeeded', data: { transactionId: eventId, orderCode: str(data.OrderCode), amount, captured_amount: charge.charged, webhook: true } });
    // Whoever captured (this webhook or the kiosk's poll), the paid payment has its ledger row, on what
    // the customer was charged, tip included (as an online order's, whose `Amount` is its whole charge).
    const paid = r.status === 'Complete' && eventId ? await capturedPaymentOf(tdb, t.id, eventId) : null;
    if (paid) await recordCommission(deps, tenant.merchantId, paid, charge.charged);
    return 'processed';
  } finally {
    await lock.release();
  }
}

/**
 * What a kiosk's card-b terminal sale charged, from its payment event (`Amount` and `TipAmount` in major
 * units, PROTOCOLS "card-b"), checked against the order (`terminalSaleCharge`).
 */
function cardBSaleCharge(data: Data, t: { readonly total: number; readonly tip_amount: number }): ReturnType<typeof terminalSaleCharge> {
  const absent = data.TipAmount === undefined || data.TipAmount === null;
  return terminalSaleCharge(majorToCents(data.Amount), absent ? null : (majorToCents(data.TipAmount) ?? undefined), t);
}

/**
 * The provider transaction the order was captured with, when `eventId` is that payment: the webhook's
 * own (it captured), the one its session or order reported to the poll that captured it, or the
 * pre-authorisation that capture took. The ledger row is always written under the captured id, so a
 * pre-authorisation's event and its capture's event make one row. Another payment of an order already
 * Complete (a second charge) is not the order's: null, no commission here.
 */
async function capturedPaymentOf(tdb: TenantDb, transactionId: string, eventId: string): Promise<string | null> {
  const row = await tdb
    .selectFrom('transactions')
    .select([sql<string | null>`payment_snapshot->>'transactionId'`.as('paid'), sql<string | null>`payment_snapshot->>'preauthTransactionId'`.as('preauth')])
    .where('id', '=', transactionId)
    .executeTakeFirst();
  return row?.paid && (row.paid === eventId || row.preauth === eventId) ? row.paid : null;
}

/** Commission tracking of a completed card-b terminal payment: one ledger row per provider transaction. */
async function recordCommission(deps: WebhookDeps, merchantId: string, transactionId: string, amountCents: number): Promise<void> {
  const inserted = await deps.db.transaction().execute(async (tx) => {
    await lockLedgerOf(tx, transactionId);
    return tx
      .insertInto('commission_ledger')
      // With the amount it was computed on: its reversals claw back its own share of it (`cardBClawback`),
      // whatever rate is configured when they come.
      .values({ id: Bun.randomUUIDv7(), merchant_id: merchantId, source: 'card_b_terminal', source_ref: transactionId, commission_amount: Math.round((amountCents * deps.commissionBps) / 10_000), base_amount: amountCents, created_at: deps.now() })
      .onConflict((oc) => oc.columns(['source', 'source_ref']).where(sql<boolean>`not is_adjustment`).doNothing())
      .returning('id')
      .executeTakeFirst();
  });
  if (inserted) await applyEarlierReversals(deps, merchantId, transactionId);
}

/**
 * Serialises the ledger row of one card-b payment with its reversals: a reversal that finds no row
 * commits its `ledger_row_missing` mark before the row can be written, so the row's writer sees it.
 */
async function lockLedgerOf(tx: Transaction<CentralTables>, paymentId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`card_b_ledger:${paymentId}`}))`.execute(tx);
}

/** Why a reversal that finds no ledger entry of its payment is stored failed (replayable). */
export const LEDGER_ROW_MISSING = 'ledger_row_missing' as const;

/**
 * Reversals of this payment that arrived before its ledger row existed (its payment event failed and
 * was replayed later, or came after the reversal) were stored failed (`ledger_row_missing`): now that
 * the row is there they run again, so the commission is clawed back whatever the order of delivery.
 */
async function applyEarlierReversals(deps: WebhookDeps, merchantId: string, transactionId: string): Promise<void> {
  const pending = await deps.db
    .selectFrom('webhook_logs')
    .select(['id', 'raw_body'])
    .where('merchant_id', '=', merchantId)
    .where('type', '=', 'card_b_webhook')
    .where('status', '=', 'failed')
    .where('error', '=', LEDGER_ROW_MISSING)
    .where(sql<string>`payload->'EventData'->>'ParentId'`, '=', transactionId)
    .orderBy('created_at')
    .limit(20)
    .execute();
  for (const r of pending) await handleCardBWebhook(deps, r.raw_body, '1797', { replayOf: r.id });
}

/** Rule 6: reversal claimed once; each matching ledger entry gets an adjustment of the commission on the amount reversed. */
async function reversal(deps: WebhookDeps, tenant: WebhookTenant, data: Data, logId: string | null): Promise<WebhookLogStatus | typeof LEDGER_ROW_MISSING> {
  const parentId = str(data.ParentId);
  const eventId = str(data.TransactionId);
  if (!parentId || !eventId) {
    deps.log.warn('card-b reversal without ParentId or TransactionId', { parent_id: parentId, event_id: eventId });
    return 'ignored';
  }
  const claimed = await deps.db
    .insertInto('webhook_claims')
    .values({ provider: 'card-b', event_id: eventId, status: 'claimed', claimed_at: deps.now(), updated_at: deps.now() })
    // A claim whose processing failed may be taken again (a replay); a claimed or processed one never.
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doUpdateSet({ status: 'claimed', error: null, updated_at: deps.now() }).where('webhook_claims.status', '=', 'failed'))
    .returning('event_id')
    .executeTakeFirst();
  if (!claimed) return 'duplicate';
  try {
    const missing = await deps.db.transaction().execute(async (tx) => {
      await lockLedgerOf(tx, parentId);
      const entries = await tx
        .selectFrom('commission_ledger')
        .selectAll()
        .where('source_ref', '=', parentId)
        .where('source', '=', 'card_b_terminal')
        .where('is_adjustment', '=', false)
        .where('status', '!=', 'voided')
        .where('merchant_id', '=', tenant.merchantId)
        .forUpdate()
        .execute();
      // Nothing to adjust yet (the payment's event failed, or has not come): failed, so it is not lost;
      // the payment's ledger row runs it again when written (`applyEarlierReversals`), or a replay does.
      // Marked in this commit, under the payment's ledger lock: a ledger row written meanwhile finds it.
      if (!entries.length) {
        await markWebhook(tx, deps.log, logId ?? undefined, 'failed', { merchantId: tenant.merchantId, error: LEDGER_ROW_MISSING });
        // The claim too, so that writer's rerun may take it again.
        await tx.updateTable('webhook_claims').set({ status: 'failed', error: LEDGER_ROW_MISSING, updated_at: deps.now() }).where('provider', '=', 'card-b').where('event_id', '=', eventId).execute();
        return true;
      }
      // What was given back, a tip reported beside it included, as the payment's commission counts it.
      const reversedTip = majorToCents(data.TipAmount);
      const reversedAmount = majorToCents(data.Amount);
      const reversedCents = reversedAmount === null ? null : reversedAmount + (reversedTip !== null && reversedTip > 0 ? reversedTip : 0);
      for (const e of entries) {
        // A partial reversal claws back the entry's share of the amount reversed; all reversals together
        // never give back more than the entry earned (the row lock orders them).
        const given = await tx
          .selectFrom('commission_ledger')
          .select((eb) => [
            eb.fn.coalesce(eb.fn.sum<number>('commission_amount'), sql<number>`0`).as('sum'),
            eb.fn.coalesce(eb.fn.sum<number>('base_amount'), sql<number>`0`).as('reversed'),
          ])
          .where('adjusts_id', '=', e.id)
          .where('reason', '=', 'card_b_reversal')
          .executeTakeFirstOrThrow();
        const amount = cardBClawback({
          commission: e.commission_amount,
          baseAmount: e.base_amount === null ? null : Number(e.base_amount),
          clawedBack: -Number(given.sum),
          reversedBefore: Number(given.reversed),
          reversedCents,
          currentBps: deps.commissionBps,
        });
        // Nothing to give back: no adjustment. But a reversal whose share of an entry with a base rounds to 0
        // while the entry still has some is recorded (0), so the next one's share counts what it reversed.
        if (amount <= 0 && (e.base_amount === null || e.commission_amount + Number(given.sum) <= 0)) continue;
        await tx
          .insertInto('commission_ledger')
          .values({
            id: Bun.randomUUIDv7(),
            merchant_id: e.merchant_id,
            source: e.source,
            source_ref: eventId,
            is_adjustment: true,
            adjusts_id: e.id,
            commission_amount: amount > 0 ? -amount : 0,
            // What this reversal gave back of the sale: the next reversal's share counts it.
            base_amount: reversedCents,
            reason: 'card_b_reversal',
            created_at: deps.now(),
          })
          .onConflict((oc) => oc.columns(['adjusts_id', 'source_ref']).where(sql<boolean>`is_adjustment`).doNothing())
          .execute();
      }
      return false;
    });
    if (missing) return LEDGER_ROW_MISSING;
    await deps.db.updateTable('webhook_claims').set({ status: 'processed', updated_at: deps.now() }).where('provider', '=', 'card-b').where('event_id', '=', eventId).execute();
    return 'processed';
  } catch (e) {
    await deps.db
      .updateTable('webhook_claims')
      .set({ status: 'failed', error: e instanceof Error ? e.message.slice(0, 500) : 'error', updated_at: deps.now() })
      .where('provider', '=', 'card-b')
      .where('event_id', '=', eventId)
      .execute()
      .catch(() => undefined);
    throw e;
  }
}

