import { CardAClient, CardBClient, PlatformAClient } from '@pos/providers/payments';
import { DEFAULT_PROVIDERS, type PaymentProvider, type ProviderDefaults } from '@pos/domain/payments/provider-choice';

/** The payment variables of the environment (kernel `PaymentEnv`), already validated. */
export interface PaymentEnvValues {
  CARD_A_BASE_URL?: string | undefined;
  CARD_A_SECRET_KEY?: string | undefined;
  CARD_B_BASE_URL?: string | undefined;
  CARD_B_ACCOUNTS_URL?: string | undefined;
  CARD_B_CHECKOUT_URL?: string | undefined;
  CARD_B_CLIENT_ID?: string | undefined;
  CARD_B_CLIENT_SECRET?: string | undefined;
  PLATFORM_A_BASE_URL?: string | undefined;
  PLATFORM_A_ACCESS_TOKEN?: string | undefined;
  PAYMENT_CURRENCY?: string | undefined;
  PAYMENT_DEFAULT_PROVIDER?: PaymentProvider | undefined;
  PAYMENT_KIOSK_DEFAULT_PROVIDER?: PaymentProvider | undefined;
  PAYMENT_AUTO_SUCCESS?: string | undefined;
  CARD_A_DEVICE_PRICE_ID?: string | undefined;
}

/** Provider clients built once from configuration; a provider without a base URL is absent. */
export interface PaymentProviders {
  readonly cardA: CardAClient | null;
  readonly cardB: CardBClient | null;
  readonly platformA: PlatformAClient | null;
  readonly defaults: ProviderDefaults;
  /** ISO 4217 letters (`EUR`). */
  readonly currency: string;
  /** ISO 4217 number for card-b (`978` for EUR). */
  readonly currencyNumeric: string;
  /** Development flag: payments complete without terminal interaction (refused in production by the config loader). */
  readonly autoSuccess: boolean;
  /** The card-a price of a kiosk or kds subscription (`CARD_A_DEVICE_PRICE_ID`); absent, devices cannot be subscribed. */
  readonly devicePriceId?: string | null;
}

const NUMERIC: Readonly<Record<string, string>> = { EUR: '978', GBP: '826', USD: '840', CHF: '756', SEK: '752', DKK: '208', PLN: '985', CZK: '203', RON: '946', HUF: '348', BGN: '975' };

export function paymentProvidersFromEnv(env: PaymentEnvValues): PaymentProviders {
  const currency = env.PAYMENT_CURRENCY ?? 'EUR';
  const numeric = NUMERIC[currency];
  if (!numeric) throw new Error(`PAYMENT_CURRENCY ${currency} has no known ISO 4217 number`);
  return {
    cardA: env.CARD_A_BASE_URL && env.CARD_A_SECRET_KEY ? new CardAClient({ baseUrl: env.CARD_A_BASE_URL, secretKey: env.CARD_A_SECRET_KEY }) : null,
    cardB:
      env.CARD_B_BASE_URL && env.CARD_B_CLIENT_ID && env.CARD_B_CLIENT_SECRET
        ? new CardBClient({ baseUrl: env.CARD_B_BASE_URL, clientId: env.CARD_B_CLIENT_ID, clientSecret: env.CARD_B_CLIENT_SECRET, ...(env.CARD_B_ACCOUNTS_URL ? { accountsUrl: env.CARD_B_ACCOUNTS_URL } : {}), ...(env.CARD_B_CHECKOUT_URL ? { checkoutUrl: env.CARD_B_CHECKOUT_URL } : {}) })
        : null,
    platformA: env.PLATFORM_A_BASE_URL && env.PLATFORM_A_ACCESS_TOKEN ? new PlatformAClient({ baseUrl: env.PLATFORM_A_BASE_URL, accessToken: env.PLATFORM_A_ACCESS_TOKEN }) : null,
    defaults: {
      defaultProvider: env.PAYMENT_DEFAULT_PROVIDER ?? DEFAULT_PROVIDERS.defaultProvider,
      kioskDefaultProvider: env.PAYMENT_KIOSK_DEFAULT_PROVIDER ?? DEFAULT_PROVIDERS.kioskDefaultProvider,
    },
    currency,
    currencyNumeric: numeric,
    autoSuccess: env.PAYMENT_AUTO_SUCCESS === 'true' || env.PAYMENT_AUTO_SUCCESS === '1',
    devicePriceId: env.CARD_A_DEVICE_PRICE_ID ?? null,
  };
}
