import { fileURLToPath } from 'node:url';

/** Ports and secrets of the end-to-end stack; separate from `bun run dev` so both can run at once. */
const apiPort = Number(process.env.E2E_API_PORT ?? 3400);
/** Payment simulators (CONTRACTS 6) listen beside the API: api port + 20, + 21, + 22 unless set. */
const sims = {
  cardA: Number(process.env.E2E_CARD_A_SIM_PORT ?? apiPort + 20),
  cardB: Number(process.env.E2E_CARD_B_SIM_PORT ?? apiPort + 21),
  platformA: Number(process.env.E2E_PLATFORM_A_SIM_PORT ?? apiPort + 22),
  // OAuth token endpoints of the integration connect flows (issue 13): api port + 23 .. + 26.
  shopAOAuth: Number(process.env.E2E_SHOP_A_OAUTH_SIM_PORT ?? apiPort + 23),
  platformAOAuth: Number(process.env.E2E_PLATFORM_A_OAUTH_SIM_PORT ?? apiPort + 24),
  deliveryBOAuth: Number(process.env.E2E_DELIVERY_B_OAUTH_SIM_PORT ?? apiPort + 25),
  registerCOAuth: Number(process.env.E2E_REGISTER_C_OAUTH_SIM_PORT ?? apiPort + 26),
  // Customer login providers (issue 16): SMS, e-mail send, bot challenge at api port + 40, + 41, + 42.
  sms: Number(process.env.E2E_SMS_SIM_PORT ?? apiPort + 40),
  mailApi: Number(process.env.E2E_MAIL_API_SIM_PORT ?? apiPort + 41),
  challenge: Number(process.env.E2E_CHALLENGE_SIM_PORT ?? apiPort + 42),
  // register-a (issue 17): api port + 43.
  registerA: Number(process.env.E2E_REGISTER_A_SIM_PORT ?? apiPort + 43),
  // register-b's partner API (issue 17 item 4): api port + 44.
  registerB: Number(process.env.E2E_REGISTER_B_SIM_PORT ?? apiPort + 44),
  // register-c API (issue 17 item 4): api port + 45.
  registerC: Number(process.env.E2E_REGISTER_C_SIM_PORT ?? apiPort + 45),
  // Marketplaces' store APIs (issue 17: syncs and inbound orders): api port + 37, + 38.
  deliveryA: Number(process.env.E2E_DELIVERY_A_SIM_PORT ?? apiPort + 37),
  deliveryB: Number(process.env.E2E_DELIVERY_B_SIM_PORT ?? apiPort + 38),
  // register-d's transport (issue 17 item 4): api port + 46.
  registerD: Number(process.env.E2E_REGISTER_D_SIM_PORT ?? apiPort + 46),
  // Issue 18: the SMTP catcher (SMTP and its HTTP reading API) and the identity-provider simulator.
  smtp: Number(process.env.E2E_SMTP_PORT ?? apiPort + 30),
  smtpHttp: Number(process.env.E2E_SMTP_HTTP_PORT ?? apiPort + 31),
  idp: Number(process.env.E2E_IDP_SIM_PORT ?? apiPort + 32),
};

export const E2E = {
  apiPort,
  simPorts: sims,
  printerPort: Number(process.env.E2E_PRINTER_PORT ?? 3401),
  workerPort: Number(process.env.E2E_WORKER_PORT ?? 3402),
  stackPort: Number(process.env.E2E_STACK_PORT ?? 3403),
  env: {
    APP_ENV: 'test',
    // The suites stand behind a proxy: each test's client address comes in X-Forwarded-For (support/test.ts).
    TRUSTED_PROXIES: '127.0.0.1',
    JWT_SECRET: 'e2e-jwt-secret-0123456789abcdef0123456789',
    DEVICE_API_KEY: 'e2e-device-api-key-0123',
    PIN_PEPPER: 'e2e-pin-pepper-0123456789',
    FISCAL_MASTER_KEY: 'test-fiscal-master-key-0123456789abcdef',
    CARD_A_BASE_URL: `http://127.0.0.1:${sims.cardA}`,
    CARD_A_SECRET_KEY: 'sk_e2e_card_a_secret',
    CARD_A_DEVICE_PRICE_ID: 'price_e2e_device',
    CARD_B_BASE_URL: `http://127.0.0.1:${sims.cardB}`,
    CARD_B_CLIENT_ID: 'e2e-card-b-client',
    CARD_B_CLIENT_SECRET: 'e2e-card-b-secret',
    PLATFORM_A_BASE_URL: `http://127.0.0.1:${sims.platformA}`,
    PLATFORM_A_ACCESS_TOKEN: 'e2e-platform-a-token',
    // card-a's simulator signs its webhooks with this endpoint secret; the API verifies with it (issue 13).
    CARD_A_WEBHOOK_SECRET: 'whsec_e2e_card_a_webhook_secret',
    // Integration webhooks and OAuth callbacks (issue 13).
    DELIVERY_B_WEBHOOK_SECRET: 'e2e-delivery-b-webhook-secret',
    // Marketplace store APIs (issue 17): the simulators sign their order webhooks with these secrets.
    DELIVERY_A_WEBHOOK_SECRET: 'e2e-delivery-a-webhook-secret',
    DELIVERY_A_API_URL: `http://127.0.0.1:${sims.deliveryA}`,
    DELIVERY_A_API_TOKEN: 'e2e-delivery-a-api-token',
    DELIVERY_B_API_URL: `http://127.0.0.1:${sims.deliveryB}`,
    DELIVERY_B_API_TOKEN: 'e2e-delivery-b-api-token',
    // register-d's transport (issue 17 item 4) and the vendor words it serves.
    REGISTER_D_API_URL: `http://127.0.0.1:${sims.registerD}`,
    REGISTER_D_API_TOKEN: 'e2e-register-d-api-token',
    REGISTER_D_VENDORS: 'vendor-a,vendor-b',
    OAUTH_STATE_SECRET: 'e2e-oauth-state-secret-0123456789abcdef',
    INTEGRATION_TOKEN_KEY: 'e2e0'.repeat(16),
    SHOP_A_OAUTH_URL: `http://127.0.0.1:${sims.shopAOAuth}`,
    SHOP_A_CLIENT_ID: 'e2e-shop-a-client',
    SHOP_A_CLIENT_SECRET: 'e2e-shop-a-secret',
    PLATFORM_A_OAUTH_URL: `http://127.0.0.1:${sims.platformAOAuth}`,
    PLATFORM_A_CLIENT_ID: 'e2e-platform-a-client',
    PLATFORM_A_CLIENT_SECRET: 'e2e-platform-a-secret',
    DELIVERY_B_OAUTH_URL: `http://127.0.0.1:${sims.deliveryBOAuth}`,
    DELIVERY_B_CLIENT_ID: 'e2e-delivery-b-client',
    DELIVERY_B_CLIENT_SECRET: 'e2e-delivery-b-secret',
    REGISTER_C_OAUTH_URL: `http://127.0.0.1:${sims.registerCOAuth}`,
    REGISTER_C_CLIENT_ID: 'e2e-register-c-client',
    REGISTER_C_CLIENT_SECRET: 'e2e-register-c-secret',
    REGISTER_C_API_URL: `http://127.0.0.1:${sims.registerC}`,
    // The connect flow's redirect: the OAuth simulator's consent screen sends the browser back to this API.
    REGISTER_C_OAUTH_REDIRECT_URI: `http://127.0.0.1:${apiPort}/api/register-c/callback`,
    DELIVERY_B_OAUTH_REDIRECT_URI: `http://127.0.0.1:${apiPort}/api/delivery-b/callback`,
    // The poll URL handed to printers at pairing: the stack's printer-poll service (issue 15).
    PRINTER_POLL_PUBLIC_URL: `http://127.0.0.1:${Number(process.env.E2E_PRINTER_PORT ?? 3401)}/print/printer-a/sdp`,
    // Customer login codes and the bot challenge (issue 16), through their simulators.
    SMS_BASE_URL: `http://127.0.0.1:${sims.sms}`,
    SMS_API_KEY: 'e2e-sms-api-key',
    MAIL_API_BASE_URL: `http://127.0.0.1:${sims.mailApi}`,
    MAIL_API_KEY: 'e2e-mail-api-key',
    MAIL_API_FROM: 'codes@e2e.test',
    CHALLENGE_BASE_URL: `http://127.0.0.1:${sims.challenge}`,
    CHALLENGE_SECRET: 'e2e-challenge-secret',
    // register-a (issue 17): the simulator's token signing keys; orders are dispatched to it.
    REGISTER_A_BASE_URL: `http://127.0.0.1:${sims.registerA}`,
    REGISTER_A_SIM_PROD_KEY: 'e2e-register-a-prod-key',
    REGISTER_A_SIM_STAGING_KEY: 'e2e-register-a-staging-key',
    // register-b (issue 17 item 4): the partner API simulator and its token.
    REGISTER_B_API_URL: `http://127.0.0.1:${sims.registerB}`,
    REGISTER_B_API_TOKEN: 'e2e-register-b-api-token',
    // Back-office accounts (issue 18): mail goes to the catcher, the IdP is the simulator.
    SMTP_URL: `smtp://127.0.0.1:${sims.smtp}`,
    MAIL_FROM: 'Ordering e2e <no-reply@e2e.test>',
    APP_URL: 'http://backoffice.e2e.test',
    IDP_ISSUER: `http://127.0.0.1:${sims.idp}`,
    IDP_CLIENT_ID: 'e2e-backoffice-client',
    WEBAUTHN_RP_ID: 'localhost',
    WEBAUTHN_ORIGIN: `http://localhost:${apiPort}`,
  },
  // Playwright runs the suites under Node, so no Bun-only `import.meta.dir` here.
  seedFile: fileURLToPath(new URL('../.run/seed.json', import.meta.url)),
  /** The stack's database URL, written by start-stack for suites that set up what no route sets yet. */
  databaseUrlFile: fileURLToPath(new URL('../.run/database-url', import.meta.url)),
} as const;

export const apiUrl = (path: string) => `http://127.0.0.1:${E2E.apiPort}${path}`;
export const printerUrl = (path: string) => `http://127.0.0.1:${E2E.printerPort}${path}`;
export const cardASimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.cardA}${path}`;
export const cardBSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.cardB}${path}`;
export const platformASimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.platformA}${path}`;
export const deliveryBOAuthSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.deliveryBOAuth}${path}`;
export const mailCatcherUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.smtpHttp}${path}`;
export const idpSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.idp}${path}`;
export const workerUrl = (path: string) => `http://127.0.0.1:${E2E.workerPort}${path}`;
export const smsSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.sms}${path}`;
export const challengeSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.challenge}${path}`;
export const registerASimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.registerA}${path}`;
export const deliveryASimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.deliveryA}${path}`;
export const registerDSimUrl = (path: string) => `http://127.0.0.1:${E2E.simPorts.registerD}${path}`;
/** The sites the register-d simulator of the stack knows from its start (`vendor:siteId`). */
export const E2E_REGISTER_D_SITES = ['vendor-a:e2e-rd-site-1'] as const;
/** The stores the delivery-a simulator of the stack knows from its start. */
export const E2E_DELIVERY_A_STORES = ['e2e-da-store-1'] as const;
