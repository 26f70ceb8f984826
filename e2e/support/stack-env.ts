import { fileURLToPath } from 'node:url';

/** Ports and secrets of the end-to-end stack; separate from `bun run dev` so both can run at once. */
const apiPort = Number(process.env.E2E_API_PORT ?? 3400);
/** Payment simulators (CONTRACTS 6) listen beside the API: api port + 20, + 21, + 22 unless set. */
const sims = {
  cardA: Number(process.env.E2E_CARD_A_SIM_PORT ?? apiPort + 20),
  cardB: Number(process.env.E2E_CARD_B_SIM_PORT ?? apiPort + 21),
  platformA: Number(process.env.E2E_PLATFORM_A_SIM_PORT ?? apiPort + 22),
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
    CARD_B_BASE_URL: `http://127.0.0.1:${sims.cardB}`,
    CARD_B_CLIENT_ID: 'e2e-card-b-client',
    CARD_B_CLIENT_SECRET: 'e2e-card-b-secret',
    PLATFORM_A_BASE_URL: `http://127.0.0.1:${sims.platformA}`,
    PLATFORM_A_ACCESS_TOKEN: 'e2e-platform-a-token',
    // card-a's simulator signs its webhooks with this endpoint secret; the API verifies with it (issue 13).
    CARD_A_WEBHOOK_SECRET: 'whsec_e2e_card_a_webhook_secret',
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
export const workerUrl = (path: string) => `http://127.0.0.1:${E2E.workerPort}${path}`;
