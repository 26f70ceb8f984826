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

/** What a payment profile holds that decides its in-person provider (docs/decisions.md, "Issue 18 item 5 — payment profiles", provider choice). */
export interface ProfileAccounts {
  readonly card_a_account_id: string | null;
  /** The card-a connected account's `charges_enabled`, as last read at the provider. */
  readonly card_a_charges_enabled: boolean;
  readonly card_b_account_id: string | null;
}

/**
 * The in-person provider a payment profile reports: card-a once its connected account can take
 * charges (onboarding finished), else card-b when it holds a card-b account, else none. An account
 * still onboarding cannot take a payment, so it does not move the kiosks off card-b.
 */
export function reportedInPersonProvider(profile: ProfileAccounts | null): 'card-a' | 'card-b' | null {
  if (!profile) return null;
  if (profile.card_a_account_id && profile.card_a_charges_enabled) return 'card-a';
  return profile.card_b_account_id ? 'card-b' : null;
}

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
 * The provider of an online order's payment (spec 3 "Online ordering payment creation" rule 3): an active
 * platform-a integration gives platform-a; a merchant integrated with register-b pays by card-a (its
 * card-only intent) whatever the default provider; otherwise the stamp (card-a, or the legacy card-b).
 */
export function onlinePaymentProvider(stamped: PaymentProvider, integrated: { readonly platformAActive: boolean; readonly registerBActive: boolean }): PaymentProvider {
  if (integrated.platformAActive) return 'platform-a';
  return integrated.registerBActive ? 'card-a' : stamped;
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
