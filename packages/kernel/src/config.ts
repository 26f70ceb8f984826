import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Configuration comes only from the environment and is validated once at start. A missing or bad
 * value stops the process with one line naming the variable (see `exitOnConfigError`).
 */
export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]);
const Port = Type.String({ pattern: '^[0-9]{1,5}$' });

/** Variables every process reads. */
export const CommonEnv = {
  APP_ENV: Type.Optional(Type.Union([Type.Literal('local'), Type.Literal('test'), Type.Literal('production')])),
  DEBUG: Type.Optional(Bool),
  LOG_LEVEL: Type.Optional(Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')])),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
};

const ProviderWord = Type.Union([Type.Literal('card-a'), Type.Literal('card-b'), Type.Literal('platform-a')]);
const HttpUrl = Type.String({ pattern: '^https?://' });

/**
 * Payment providers (spec 3, CONTRACTS 6): base URLs and credentials of card-a, card-b and platform-a
 * (a provider whose base URL is unset is not configured: a payment on it is refused), the provider
 * defaults of spec 3 "Provider choice", the currency, and the auto-success development flag (refused
 * in production).
 */
export const PaymentEnv = {
  CARD_A_BASE_URL: Type.Optional(HttpUrl),
  CARD_A_SECRET_KEY: Type.Optional(Type.String({ minLength: 8 })),
  CARD_B_BASE_URL: Type.Optional(HttpUrl),
  CARD_B_ACCOUNTS_URL: Type.Optional(HttpUrl),
  /** card-b's hosted checkout page base (`{base}/web/checkout?ref={orderCode}`); CARD_B_BASE_URL when unset. */
  CARD_B_CHECKOUT_URL: Type.Optional(HttpUrl),
  CARD_B_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  CARD_B_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  PLATFORM_A_BASE_URL: Type.Optional(HttpUrl),
  PLATFORM_A_ACCESS_TOKEN: Type.Optional(Type.String({ minLength: 8 })),
  PAYMENT_CURRENCY: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  PAYMENT_DEFAULT_PROVIDER: Type.Optional(ProviderWord),
  PAYMENT_KIOSK_DEFAULT_PROVIDER: Type.Optional(ProviderWord),
  PAYMENT_AUTO_SUCCESS: Type.Optional(Bool),
  /**
   * Spec 2 gating 2: whether a provider staged `test_only` is hidden from merchants not flagged `is_test`.
   * Default: on in production (where spec 2 stages the first-party register so), off elsewhere, so a
   * merchant registered under `bun run dev` can select the register.
   */
  POS_PROVIDER_STAGING: Type.Optional(Bool),
  /** card-a price of one kiosk or kds subscription (`POST /devices/subscribe/{locationId}`, quantity = devices). */
  CARD_A_DEVICE_PRICE_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
};

/**
 * Integration webhooks and OAuth callbacks (spec 3 section 4, issue 13): verification secrets, the CRM
 * token, the key encrypting integration tokens at rest, the OAuth state key, and per OAuth provider its
 * token endpoint base URL, client credentials and registered redirect URI.
 */
export const IntegrationEnv = {
  SHOP_A_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  /** Platform suffix removed from `X-Shop-A-Shop-Domain` to name the shop; default `.myshop-a.com`. */
  SHOP_A_SHOP_DOMAIN_SUFFIX: Type.Optional(Type.String({ pattern: '^\\.[a-z0-9.-]{1,100}$' })),
  DELIVERY_A_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  DELIVERY_B_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  REGISTER_B_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  REGISTER_C_WEBHOOK_USERNAME: Type.Optional(Type.String({ minLength: 1 })),
  REGISTER_C_WEBHOOK_PASSWORD: Type.Optional(Type.String({ minLength: 8 })),
  CRM_WEBHOOK_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  /** AES-256-GCM key of integration tokens at rest: 32 bytes, 64 hex digits or base64. */
  INTEGRATION_TOKEN_KEY: Type.Optional(Type.String({ pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$' })),
  /** Signs the OAuth `state` of the integration connect flows. */
  OAUTH_STATE_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  SHOP_A_OAUTH_URL: Type.Optional(HttpUrl),
  SHOP_A_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  SHOP_A_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  SHOP_A_OAUTH_REDIRECT_URI: Type.Optional(HttpUrl),
  PLATFORM_A_OAUTH_URL: Type.Optional(HttpUrl),
  PLATFORM_A_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  PLATFORM_A_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  PLATFORM_A_OAUTH_REDIRECT_URI: Type.Optional(HttpUrl),
  DELIVERY_B_OAUTH_URL: Type.Optional(HttpUrl),
  DELIVERY_B_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  DELIVERY_B_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  DELIVERY_B_OAUTH_REDIRECT_URI: Type.Optional(HttpUrl),
  REGISTER_C_OAUTH_URL: Type.Optional(HttpUrl),
  REGISTER_C_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
  REGISTER_C_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  REGISTER_C_OAUTH_REDIRECT_URI: Type.Optional(HttpUrl),
  /** register-c API (issue 17 item 4): base URL (the simulator in dev and tests); calls carry the connection's OAuth token; unset: the register-c routes that call it answer 503. */
  REGISTER_C_API_URL: Type.Optional(HttpUrl),
  /** register-a API base (`{register_a_url}`, without `/v1`); unset: no register-a calls. */
  REGISTER_A_BASE_URL: Type.Optional(HttpUrl),
  /** delivery-a store API (issue 17): base URL (the simulator in dev and tests) and bearer token; unset: the delivery-a routes answer 503. */
  DELIVERY_A_API_URL: Type.Optional(HttpUrl),
  DELIVERY_A_API_TOKEN: Type.Optional(Type.String({ minLength: 8 })),
  /** delivery-b store API (issue 17 item 4): base URL (the simulator in dev and tests) and bearer token; unset: the delivery-b routes that call it answer 503. */
  DELIVERY_B_API_URL: Type.Optional(HttpUrl),
  DELIVERY_B_API_TOKEN: Type.Optional(Type.String({ minLength: 8 })),
  /** register-d transport (issue 17 item 4): base URL (the simulator in dev and tests) and bearer token; unset: the register-d routes that call it answer 503. */
  REGISTER_D_API_URL: Type.Optional(HttpUrl),
  REGISTER_D_API_TOKEN: Type.Optional(Type.String({ minLength: 8 })),
  /** Vendor words accepted in `/register-d/{provider}/...`, comma-separated; default `vendor-a,vendor-b`. */
  REGISTER_D_VENDORS: Type.Optional(Type.String({ maxLength: 400, pattern: '^[a-z0-9][a-z0-9-]{0,39}(,[a-z0-9][a-z0-9-]{0,39})*$' })),
  /** register-b partner API (issue 17 item 4): base URL (the simulator in dev and tests) and the partner token; unset: the register-b routes that call it answer 503. */
  REGISTER_B_API_URL: Type.Optional(HttpUrl),
  REGISTER_B_API_TOKEN: Type.Optional(Type.String({ minLength: 8 })),
} as const;

/**
 * Back-office accounts (issue 18): outgoing mail over SMTP, the links in it, WebAuthn relying
 * party, and the OpenID Connect identity provider (unset issuer: `POST /login/idp` answers 503).
 */
export const AccountEnv = {
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
  APP_URL: Type.Optional(HttpUrl),
  WEBAUTHN_RP_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
  WEBAUTHN_RP_NAME: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  WEBAUTHN_ORIGIN: Type.Optional(HttpUrl),
  IDP_ISSUER: Type.Optional(HttpUrl),
  IDP_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  IDP_JWKS_URL: Type.Optional(HttpUrl),
};

/** Commission rates the webhook handlers record in the ledger (the API's routes and `webhooks:replay`), basis points; each defaults to 0. */
export const CommissionEnv = {
  /** Commission recorded per card-b terminal payment, in basis points of the amount. */
  CARD_B_COMMISSION_BPS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  /** Reseller subscription commission: basis points of a paid service invoice, owed to the merchant's reseller (card-a `invoice.paid`). */
  CARD_A_RESELLER_COMMISSION_BPS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  /** Invoice-collection commission: basis points of a service invoice collected through card-a (card-a `invoice.paid`). */
  CARD_A_INVOICE_COLLECTION_BPS: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
};

export const ApiEnv = {
  ...CommonEnv,
  ...PaymentEnv,
  /** Geocoding provider of online ordering's address suggestions (issue 16); unset = not configured (503). */
  GEOCODING_BASE_URL: Type.Optional(HttpUrl),
  GEOCODING_API_KEY: Type.Optional(Type.String({ minLength: 8 })),
  ...AccountEnv,
  API_PORT: Type.Optional(Port),
  /** Public base URL the table QR codes point at (`{base}/table-qr-ordering/{locationId}/{sectionId}/{table}`); default http://localhost:3000/api. */
  TABLE_QR_PUBLIC_BASE_URL: Type.Optional(HttpUrl),
  /** Public storefront address a hosted checkout sends the customer back to (`{base}/{slug}/{locationId}?transaction={id}`); default http://localhost:3000. */
  ONLINE_ORDERING_PUBLIC_URL: Type.Optional(HttpUrl),
  /** API processes sharing API_PORT (reusePort); default 1. */
  API_PROCESSES: Type.Optional(Type.String({ pattern: '^[1-9][0-9]?$' })),
  /** Milliseconds the register's authentication state is trusted in the process (default 5000; 0 = off). */
  AUTH_CACHE_TTL_MS: Type.Optional(Type.String({ pattern: '^[0-9]{1,6}$' })),
  /** Seconds of silence after which the back office shows a kds, kiosk or pos device offline (default 120, at least 60). */
  DEVICE_OFFLINE_AFTER_SECONDS: Type.Optional(Type.String({ pattern: '^(?:[6-9][0-9]|[1-9][0-9]{2,5})$' })),
  /** Machine translation (DeepL v2 shape, or its simulator) behind auto-translate; unset: auto-translate answers 503. */
  TRANSLATION_BASE_URL: Type.Optional(HttpUrl),
  TRANSLATION_API_KEY: Type.Optional(Type.String({ minLength: 8 })),
  /** Text and image generation provider (or its simulator) behind description-generator and ai-photo; unset: those answer 503. */
  GENERATION_BASE_URL: Type.Optional(HttpUrl),
  GENERATION_API_KEY: Type.Optional(Type.String({ minLength: 8 })),
  /** EU VAT check service (VIES REST shape, or its simulator); unset: `POST /back-office/settings/vat/verify` answers `skipped`. */
  VAT_CHECK_BASE_URL: Type.Optional(HttpUrl),
  /** `POST /client-logger` alerts: the webhook a threshold crossing posts to once; unset disables counting and alerts. */
  CLIENT_LOGGER_ALERT_WEBHOOK_URL: Type.Optional(HttpUrl),
  /** Comma-separated watchlisted event names (default `payment_failed,printer_offline,app_crash,sync_failed`). */
  CLIENT_LOGGER_WATCHLIST: Type.Optional(Type.String({ pattern: '^[a-z0-9_.:-]+(,[a-z0-9_.:-]+)*$' })),
  /** Occurrences of one watchlisted event from one device in one bucket that raise the alert (default 5). */
  CLIENT_LOGGER_ALERT_THRESHOLD: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,4}$' })),
  /** Length of a counting bucket in seconds (default 300). */
  CLIENT_LOGGER_BUCKET_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  JWT_SECRET: Type.String({ minLength: 32 }),
  DEVICE_API_KEY: Type.String({ minLength: 16 }),
  ADMIN_SWITCH_IPS: Type.Optional(Type.String()),
  /** Bearer token `GET /metrics` requires; unset: open outside production, closed (404) in production. */
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  TRUSTED_PROXIES: Type.Optional(Type.String()),
  APP_VERSION: Type.Optional(Type.String()),
  VERSION_FILE: Type.Optional(Type.String()),
  PIN_PEPPER: Type.String({ minLength: 16 }),
  /** Derives each in-process fiscal signing key (HKDF-SHA256, info = fdm id) unless FISCAL_SIGNING_KEYS names one. */
  FISCAL_MASTER_KEY: Type.String({ minLength: 32 }),
  /** Key material of the fiscal journal seals (HMAC); default: derived from FISCAL_MASTER_KEY (HKDF, info `journal-seal`). */
  FISCAL_SEAL_KEY: Type.Optional(Type.String({ minLength: 32 })),
  /** JSON object fdm id -> 64-hex Ed25519 seed; overrides the derived key of those devices. */
  FISCAL_SIGNING_KEYS: Type.Optional(Type.String()),
  /** Base of the verification URL the in-process signer prints as a QR code. */
  FISCAL_VERIFICATION_URL: Type.Optional(Type.String()),
  /** Base URL of the remote fiscal data modules (`{base}/{fdmId}/graphql`). */
  FDM_REMOTE_URL: Type.Optional(Type.String()),
  /** JSON object fdm id -> shared secret of that remote module. */
  FDM_REMOTE_SECRETS: Type.Optional(Type.String()),
  /** Directory of the local-disk object store (uploaded content); default `.data/objects`. */
  OBJECT_STORE_DIR: Type.Optional(Type.String()),
  /** Largest accepted content upload in bytes; default 5242880 (5 MiB). */
  CONTENT_MAX_BYTES: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{2,9}$' })),
  /** The poll URL printers are given at pairing (issue 15); default `http://localhost:3100/print/printer-a/sdp`. */
  PRINTER_POLL_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  /** card-a webhook endpoint secret used for every country not named in CARD_A_WEBHOOK_SECRETS. */
  CARD_A_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  /** JSON object country code (ISO 3166 alpha-2) -> card-a webhook endpoint secret. */
  CARD_A_WEBHOOK_SECRETS: Type.Optional(Type.String()),
  /** The verification key card-b's GET handshake answers (`{"Key": …}`). */
  CARD_B_WEBHOOK_KEY: Type.Optional(Type.String({ minLength: 8 })),
  /** Comma-separated addresses and IPv4 CIDRs card-b webhooks may come from (empty allows nobody). */
  CARD_B_WEBHOOK_IPS: Type.Optional(Type.String()),
  /** platform-a webhook signature key and the notification URL exactly as subscribed (both are signed). */
  PLATFORM_A_WEBHOOK_SIGNATURE_KEY: Type.Optional(Type.String({ minLength: 8 })),
  PLATFORM_A_WEBHOOK_URL: Type.Optional(HttpUrl),
  ...CommissionEnv,
  /** Seconds between two checks of an open real-time socket's credentials and grant (default 30): a revoked token, a deleted device or a withdrawn permission ends its access within that time. */
  REALTIME_RECHECK_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,4}$' })),
  /** JSON object platform -> {version, url, min_version?, notes?}: what `GET /kiosk/updates/check` answers (unset: no updates). */
  KIOSK_UPDATE_MANIFEST: Type.Optional(Type.String()),
  ...IntegrationEnv,
  /** Customer login codes (issue 16): the SMS provider and the e-mail-send provider (or their simulators). */
  SMS_BASE_URL: Type.Optional(HttpUrl),
  SMS_API_KEY: Type.Optional(Type.String({ minLength: 8 })),
  MAIL_API_BASE_URL: Type.Optional(HttpUrl),
  MAIL_API_KEY: Type.Optional(Type.String({ minLength: 8 })),
  MAIL_API_FROM: Type.Optional(Type.String({ pattern: '^[^\\s@]+@[^\\s@]+$' })),
  /** Bot challenge on `POST /customer/send-otp`; an empty secret lets every request through (spec 1 section 7). */
  CHALLENGE_BASE_URL: Type.Optional(HttpUrl),
  CHALLENGE_SECRET: Type.Optional(Type.String({ minLength: 8 })),
  /** Customer identity-provider login (`POST /customer/login/idp`): JWKS address, issuer and client id. */
  CUSTOMER_IDP_JWKS_URL: Type.Optional(HttpUrl),
  CUSTOMER_IDP_ISSUER: Type.Optional(Type.String({ minLength: 1 })),
  CUSTOMER_IDP_CLIENT_ID: Type.Optional(Type.String({ minLength: 1 })),
};

export const WorkerEnv = {
  ...CommonEnv,
  ...PaymentEnv,
  WORKER_PORT: Type.Optional(Port),
  /** Back-office account mails (`account.mail`: verification and password-reset tokens) leave from the worker. */
  SMTP_URL: AccountEnv.SMTP_URL,
  MAIL_FROM: AccountEnv.MAIL_FROM,
  APP_URL: AccountEnv.APP_URL,
  /** `notification.send` SMS (activation codes sent to a phone): the SMS provider, as the API's customer login codes. */
  SMS_BASE_URL: ApiEnv.SMS_BASE_URL,
  SMS_API_KEY: ApiEnv.SMS_API_KEY,
  /** Milliseconds between the worker's heartbeat jobs; default 15000. */
  WORKER_HEARTBEAT_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{2,8}$' })),
  /** The worker completes pending fiscal journal entries (`fiscal.recover`): same fiscal settings as the API. */
  FISCAL_MASTER_KEY: ApiEnv.FISCAL_MASTER_KEY,
  FISCAL_SEAL_KEY: ApiEnv.FISCAL_SEAL_KEY,
  FISCAL_SIGNING_KEYS: ApiEnv.FISCAL_SIGNING_KEYS,
  FISCAL_VERIFICATION_URL: ApiEnv.FISCAL_VERIFICATION_URL,
  FDM_REMOTE_URL: ApiEnv.FDM_REMOTE_URL,
  FDM_REMOTE_SECRETS: ApiEnv.FDM_REMOTE_SECRETS,
  /** Milliseconds between the worker's fiscal recovery sweeps (`fiscal.recover`); default 60000. */
  FISCAL_RECOVER_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{2,8}$' })),
  /** Milliseconds between the worker's payment sweeps (`payment.post-capture-sweep`: steps lost with Redis's data re-queued, payments left Awaiting Payment and AI credit purchases left pending asked about); default 300000. */
  POST_CAPTURE_SWEEP_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{2,8}$' })),
  /** Order dispatch to register-a (issue 17): the API base and the key of the stored tokens. */
  REGISTER_A_BASE_URL: IntegrationEnv.REGISTER_A_BASE_URL,
  INTEGRATION_TOKEN_KEY: IntegrationEnv.INTEGRATION_TOKEN_KEY,
  /** Scheduled syncs and marketplace order imports (issue 17): the marketplaces' store APIs. */
  DELIVERY_A_API_URL: IntegrationEnv.DELIVERY_A_API_URL,
  DELIVERY_A_API_TOKEN: IntegrationEnv.DELIVERY_A_API_TOKEN,
  DELIVERY_B_API_URL: IntegrationEnv.DELIVERY_B_API_URL,
  DELIVERY_B_API_TOKEN: IntegrationEnv.DELIVERY_B_API_TOKEN,
  /** register-d through its transport: scheduled menu pushes and the dispatch of captured orders. */
  REGISTER_D_API_URL: IntegrationEnv.REGISTER_D_API_URL,
  REGISTER_D_API_TOKEN: IntegrationEnv.REGISTER_D_API_TOKEN,
  REGISTER_D_VENDORS: IntegrationEnv.REGISTER_D_VENDORS,
  /** The register-b partner API: its scheduled catalog sync and the dispatch of captured orders. */
  REGISTER_B_API_URL: IntegrationEnv.REGISTER_B_API_URL,
  REGISTER_B_API_TOKEN: IntegrationEnv.REGISTER_B_API_TOKEN,
  /** register-c's API: its scheduled sync and the dispatch of captured orders (with INTEGRATION_TOKEN_KEY). */
  REGISTER_C_API_URL: IntegrationEnv.REGISTER_C_API_URL,
  /** register-c's token endpoint and our client there: expired or refused access tokens are refreshed. */
  REGISTER_C_OAUTH_URL: IntegrationEnv.REGISTER_C_OAUTH_URL,
  REGISTER_C_CLIENT_ID: IntegrationEnv.REGISTER_C_CLIENT_ID,
  REGISTER_C_CLIENT_SECRET: IntegrationEnv.REGISTER_C_CLIENT_SECRET,
};
/** `TRUSTED_PROXIES`: the ingress in front of the poll service, whose `X-Forwarded-For` names the printer's address (the per-address throttle). */
export const PrinterPollEnv = { ...CommonEnv, PRINTER_POLL_PORT: Type.Optional(Port), JWT_SECRET: Type.String({ minLength: 32 }), TRUSTED_PROXIES: Type.Optional(Type.String()) };

/** Validates `env` against `props`; throws ConfigError naming the first bad variable. */
export function readEnv<P extends TProperties>(props: P, env: Record<string, string | undefined> = process.env): Static<TObject<P>> {
  const schema = Type.Object(props);
  const picked: Record<string, string> = {};
  for (const key of Object.keys(props)) {
    const v = env[key];
    if (v !== undefined && v !== '') picked[key] = v;
  }
  const first = Value.Errors(schema, picked).First();
  if (first) {
    const variable = first.path.replace(/^\//, '').split('/')[0] || 'environment';
    const detail = picked[variable] === undefined ? 'is required' : `is invalid (${first.message})`;
    throw new ConfigError(variable, detail);
  }
  if ((picked.PAYMENT_AUTO_SUCCESS === 'true' || picked.PAYMENT_AUTO_SUCCESS === '1') && env.APP_ENV === 'production') {
    throw new ConfigError('PAYMENT_AUTO_SUCCESS', 'is refused in production (payments would complete without a terminal)');
  }
  // Spec 1 section 7: a 5xx never shows its error text in production; debug would show it (and a schema name).
  if ((picked.DEBUG === 'true' || picked.DEBUG === '1') && env.APP_ENV === 'production') {
    throw new ConfigError('DEBUG', 'is refused in production (5xx answers would show internal error text)');
  }
  return picked as Static<TObject<P>>;
}

/** Runs `load`; on ConfigError prints its one line and exits 1. */
export function exitOnConfigError<T>(load: () => T): T {
  try {
    return load();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(e.message + '\n');
      process.exit(1);
    }
    throw e;
  }
}

export type AppEnv = 'local' | 'test' | 'production';
export const appEnv = (env: { APP_ENV?: AppEnv | undefined }): AppEnv => env.APP_ENV ?? 'local';
/** Never in production, whatever `DEBUG` says (readEnv refuses the pair; this holds for a config built by hand too). */
export const isDebug = (env: { DEBUG?: string | undefined; APP_ENV?: string | undefined }): boolean => env.APP_ENV !== 'production' && (env.DEBUG === 'true' || env.DEBUG === '1');
export const portOf = (v: string | undefined, dflt: number): number => (v ? Number(v) : dflt);
