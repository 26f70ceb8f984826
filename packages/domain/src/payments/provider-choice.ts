/**
 * Provider choice (spec 3 section 1 "Provider choice"). The defaults are configuration, passed in.
 */
export const PAYMENT_PROVIDERS = ['card-a', 'card-b', 'platform-a'] as const;
export type PaymentProvider = (typeof PAYMENT_PROVIDERS)[number];

export interface ProviderDefaults {
  /** Every non-kiosk channel (online ordering included); `card-a` unless configured otherwise. */
  readonly defaultProvider: PaymentProvider;
  /** A kiosk whose location's payment profile does not report in-person card-a; `card-b` unless configured otherwise. */
  readonly kioskDefaultProvider: PaymentProvider;
}

export const DEFAULT_PROVIDERS: ProviderDefaults = { defaultProvider: 'card-a', kioskDefaultProvider: 'card-b' };

/** The provider stamped on a transaction at creation (rule 1). */
export function stampPaymentProvider(channel: string, inPersonProvider: string | null, defaults: ProviderDefaults): PaymentProvider {
  if (channel !== 'kiosk') return defaults.defaultProvider;
  return inPersonProvider === 'card-a' ? 'card-a' : defaults.kioskDefaultProvider;
}

/** The provider that runs the payment (rule 2): an active platform-a integration overrides the stamp. */
export function paymentTimeProvider(stamped: PaymentProvider, platformAActive: boolean): PaymentProvider {
  return platformAActive ? 'platform-a' : stamped;
}

/**
 * The provider a transaction's payment runs (or ran) on: the one its payment start recorded (where rule
 * 2's platform-a override shows), else the stamped one. A marketplace order (stamped with its
 * marketplace) is paid by the marketplace whatever its snapshot holds. The stamp itself stays as
 * stamped (spec 3: `payment_provider` is the stamped provider).
 */
export function runningPaymentProvider<S extends string>(stamped: S, recorded: unknown): S | PaymentProvider {
  return isPaymentProvider(stamped) && typeof recorded === 'string' && isPaymentProvider(recorded) ? recorded : stamped;
}

export function isPaymentProvider(s: string): s is PaymentProvider {
  return (PAYMENT_PROVIDERS as readonly string[]).includes(s);
}
