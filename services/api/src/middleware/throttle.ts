import type Redis from 'ioredis';
import { AppError, hitThrottle, releaseThrottle, reserveThrottle, type AppEnv, type ThrottleRule } from '@pos/kernel';

/** The named throttles of spec 1 section 8 and spec 2 section 8. */
export const THROTTLES = {
  customerGuest: { name: 'customer', limit: 20, windowSeconds: 60 },
  /** Customer login codes sent to one destination (a hash of the phone or address), whoever asks. */
  customerOtpDestination: { name: 'customer-otp-destination', limit: 5, windowSeconds: 15 * 60 },
  /**
   * Customer login codes sent for one merchant: the SMS or mail carries the merchant's name, which anyone
   * registering a merchant chooses, and each SMS is paid by us.
   */
  customerOtpMerchant: { name: 'customer-otp-merchant', limit: 300, windowSeconds: 3600 },
  /**
   * Customer login codes one client address sends for one merchant, counted before the merchant's cap:
   * without it one anonymous client, naming a new destination each time, spent the merchant's 300 in
   * minutes and locked every genuine customer out of code sign-in for the hour.
   */
  customerOtpMerchantAddress: { name: 'customer-otp-merchant-ip', limit: 20, windowSeconds: 3600 },
  loginIdp: { name: 'login-idp', limit: 5, windowSeconds: 60 },
  orderHistory: { name: 'order-history', limit: 5, windowSeconds: 60 },
  orderDetail: { name: 'order-detail', limit: 10, windowSeconds: 60 },
  vatVerify: { name: 'vat-verify', limit: 30, windowSeconds: 60 },
  crmIntake: { name: 'crm-intake', limit: 60, windowSeconds: 60 },
  login: { name: 'login', limit: 10, windowSeconds: 60 },
  /**
   * Failed back-office password sign-ins per client address, whatever the account: `login` counts per
   * address and account, so one address could try a password on every account (spraying). Only
   * failures count (an office signing in all day never meets it); once reached, every attempt from the
   * address is 429 until the window ends, the right password included.
   */
  loginAddressFailures: { name: 'login-ip-failures', limit: 30, windowSeconds: 3600 },
  /**
   * Customer app contact changes (`POST /customer/personal-info` giving another e-mail or phone): its
   * "already been taken" answer tells who is a customer, so per customer and per client address.
   */
  customerContactChange: { name: 'customer-contact', limit: 10, windowSeconds: 3600 },
  customerContactChangeAddress: { name: 'customer-contact-ip', limit: 20, windowSeconds: 3600 },
  /**
   * Team invitation mails to one address (a hash of it), whoever invites, invitations and resends
   * alike: an invitation goes to any address under a merchant name anyone can register (mail flooding).
   */
  invitationRecipient: { name: 'invitation-recipient', limit: 5, windowSeconds: 15 * 60 },
  deviceActivate: { name: 'device-activate', limit: 10, windowSeconds: 60 },
  /**
   * Device activation codes sent by SMS or e-mail (`send-activation-code`): to one recipient (a hash of
   * the E.164 number or lower-cased address) and per merchant. Anyone can register a merchant and a
   * kiosk, and each SMS is paid by us: without a bound the route pumped SMS to any number.
   */
  activationCodeRecipient: { name: 'activation-code-recipient', limit: 5, windowSeconds: 15 * 60 },
  activationCodeMerchant: { name: 'activation-code-merchant', limit: 30, windowSeconds: 3600 },
  posPin: { name: 'pos-pin', limit: 10, windowSeconds: 60 },
  /**
   * Wrong PINs per register device and hour (only failures count: staff switching all day never meets
   * it). With `pos-pin` alone a stolen device token tried the 10,000 four-digit PINs in 17 hours; at
   * 30 failures an hour that takes two weeks, and the register's staff see the lock-out first.
   */
  posPinFailures: { name: 'pos-pin-failures', limit: 30, windowSeconds: 3600 },
  posEscalate: { name: 'pos-escalate', limit: 10, windowSeconds: 60 },
  printerDiscoveryMinute: { name: 'printer-discovery', limit: 4, windowSeconds: 60 },
  printerDiscoveryHour: { name: 'printer-discovery', limit: 60, windowSeconds: 3600 },
  printerDiscoveryAddress: { name: 'printer-discovery-ip', limit: 120, windowSeconds: 60 },
  /** Kiosk gift-card codes (issue 14): per device, and per client address across devices. */
  giftCardDevice: { name: 'gift-card-validate', limit: 10, windowSeconds: 60 },
  giftCardAddress: { name: 'gift-card-validate-ip', limit: 30, windowSeconds: 60 },
  /** Kiosk customer lookups (identify, loyalty login): a contact reveals a name, so they are counted per device. */
  kioskCustomer: { name: 'kiosk-customer', limit: 30, windowSeconds: 60 },
  /**
   * Kiosk receipt mails: the address is typed by whoever stands at the screen, so a kiosk (or its
   * stolen token) is not a mail relay: per device, and per transaction (a mistyped address retried).
   */
  kioskReceiptDevice: { name: 'kiosk-receipt', limit: 10, windowSeconds: 60 },
  kioskReceiptTransaction: { name: 'kiosk-receipt-transaction', limit: 5, windowSeconds: 3600 },
  /**
   * Receipt mails to one inbox (`mailboxKey`) from the back office's resend-receipt and the kiosk's
   * send-receipt, whatever the transaction: anyone can register a merchant and complete test-mode orders, so per transaction
   * alone (`kiosk-receipt-transaction`, shared with the kiosk) would still flood an inbox.
   */
  receiptRecipient: { name: 'receipt-recipient', limit: 10, windowSeconds: 3600 },
  /**
   * Back-office resends per user and per merchant, whatever the transaction or address: 5 per transaction
   * over many test-mode orders, each to a new address, was still a relay carrying the merchant's item names.
   */
  receiptResendUser: { name: 'receipt-resend-user', limit: 30, windowSeconds: 3600 },
  receiptResendMerchant: { name: 'receipt-resend-merchant', limit: 100, windowSeconds: 3600 },
  /**
   * Test prints: paper and a printer's queue (jobs print in order, so a flood of test pages holds back the
   * receipts behind them). Per printer, whoever asks (register or back office); the kiosk's test print
   * goes to every receipt printer of its location and is counted per kiosk.
   */
  /**
   * AI item descriptions are free to the merchant and paid per call by us (photos cost credits): per
   * signed-in user, and per merchant across its users.
   */
  descriptionUser: { name: 'description-generator', limit: 20, windowSeconds: 60 },
  descriptionMerchant: { name: 'description-generator-merchant', limit: 200, windowSeconds: 3600 },
  /** AI photos: a provider refusal gives the credit back, so one credit could pay for any number of calls on our key. */
  aiPhotoUser: { name: 'ai-photo', limit: 20, windowSeconds: 60 },
  aiPhotoMerchant: { name: 'ai-photo-merchant', limit: 100, windowSeconds: 3600 },
  /** Client error reports: each is a log line; per device. */
  clientLogger: { name: 'client-logger', limit: 60, windowSeconds: 60 },
  /** Content uploads (up to 5 MiB each) per merchant: the object store's disk is shared. */
  contentUploadMerchant: { name: 'content-upload-merchant', limit: 200, windowSeconds: 3600 },
  testPrintPrinter: { name: 'test-print', limit: 5, windowSeconds: 60 },
  /**
   * The storefront's public address lookups (`/online-ordering/address-suggestions`,
   * `/coordinates-to-address`): each is a paid geocoding call and needs no token, so per client address.
   * Autocomplete asks once per keystroke; 60 a minute covers a customer typing several addresses.
   */
  geocoding: { name: 'geocoding', limit: 60, windowSeconds: 60 },
  /**
   * Storefront payment starts (`POST /online-ordering/{slug}/{locationId}/payment`): each stores an order
   * (an order number, stock held 15 minutes) and creates a payment at the provider, for anyone without a
   * token. Per client address and location; 30 a minute leaves room for a venue's guests behind one address.
   */
  onlinePayment: { name: 'online-payment', limit: 30, windowSeconds: 60 },
  /**
   * Storefront orders that hold tracked stock (15 minutes, unpaid): counted once the hold is made, per client
   * address and location, or per table session for a table order. The window is the hold's lifetime, so a
   * client never holds more than 10 orders' stock at once; a customer who pays needs one or two.
   */
  onlineStockHold: { name: 'online-stock-hold', limit: 10, windowSeconds: 15 * 60 },
  testPrintDevice: { name: 'test-print-device', limit: 5, windowSeconds: 60 },
  /**
   * Storefront verifies (`POST /online-ordering/{slug}/{locationId}/verify-payment`, no token): each may
   * ask the provider. Per client address and order; 60 a minute lets a page poll once a second.
   */
  onlineVerify: { name: 'online-verify', limit: 60, windowSeconds: 60 },
  /**
   * Card attempts on a guest's platform-a order (`POST /online-ordering/payment/process`): a declined card
   * leaves the order open for another, so without a bound one order tested any number of stolen cards.
   * Per order, and per client address across orders.
   */
  onlineCardAttemptOrder: { name: 'online-card-attempt-order', limit: 10, windowSeconds: 3600 },
  onlineCardAttemptAddress: { name: 'online-card-attempt-address', limit: 30, windowSeconds: 600 },
  /**
   * Back-office `POST /transactions/{id}/verify-payment-status` (a provider call each) and `retry-sync`
   * (a register dispatch job each): per transaction, and per signed-in user across transactions.
   */
  transactionVerify: { name: 'transaction-verify', limit: 10, windowSeconds: 60 },
  transactionVerifyUser: { name: 'transaction-verify-user', limit: 60, windowSeconds: 60 },
  transactionRetrySync: { name: 'transaction-retry-sync', limit: 5, windowSeconds: 60 },
  transactionRetrySyncUser: { name: 'transaction-retry-sync-user', limit: 30, windowSeconds: 60 },
} as const satisfies Record<string, ThrottleRule>;

const throttled = (retryAfter: number) => new AppError('throttled', 'Too Many Attempts.', { extra: { retry_after: retryAfter } });

/** A place under a rule that counts some outcomes only, taken before the attempt (`reserveThrottle`). */
export interface ReservedAttempt {
  /** The outcome does not count (a right password, an order that holds nothing): the place is given back. */
  release(): Promise<void>;
}

/**
 * A rule that counts some outcomes only (failures): 429 before the attempt once the subject's count
 * reached the limit. The attempt holds a place while it runs, so a burst of attempts at once is bounded
 * as a sequence is; the caller gives the place back (`release`) when the outcome does not count. Off in
 * the local environment, as `throttle`.
 */
export async function failureThrottle(redis: Redis, env: AppEnv, rule: ThrottleRule, subject: string): Promise<ReservedAttempt> {
  if (env === 'local') return { release: async () => undefined };
  const r = await reserveThrottle(redis, rule, subject);
  if (!r.allowed) throw throttled(r.retryAfter);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await releaseThrottle(redis, rule, subject);
    },
  };
}

/** Runs an attempt under `failureThrottle`: its place is kept when it throws what `isFailure` accepts, given back otherwise. */
export async function countFailures<T>(redis: Redis, env: AppEnv, rule: ThrottleRule, subject: string, isFailure: (e: unknown) => boolean, attempt: () => Promise<T>): Promise<T> {
  const place = await failureThrottle(redis, env, rule, subject);
  try {
    const value = await attempt();
    await place.release();
    return value;
  } catch (e) {
    if (!isFailure(e)) await place.release();
    throw e;
  }
}

/** Applies every rule to its subject; rate limiting is off in the local environment. 429 when exceeded. */
export async function throttle(redis: Redis, env: AppEnv, checks: readonly [ThrottleRule, string][]): Promise<void> {
  if (env === 'local') return;
  for (const [rule, subject] of checks) {
    const r = await hitThrottle(redis, rule, subject);
    if (!r.allowed) throw throttled(r.retryAfter);
  }
}
