import { fileURLToPath } from 'node:url';

/** Ports and secrets of the end-to-end stack; separate from `bun run dev` so both can run at once. */
export const E2E = {
  apiPort: Number(process.env.E2E_API_PORT ?? 3400),
  printerPort: Number(process.env.E2E_PRINTER_PORT ?? 3401),
  workerPort: Number(process.env.E2E_WORKER_PORT ?? 3402),
  stackPort: Number(process.env.E2E_STACK_PORT ?? 3403),
  env: {
    APP_ENV: 'test',
    JWT_SECRET: 'e2e-jwt-secret-0123456789abcdef0123456789',
    DEVICE_API_KEY: 'e2e-device-api-key-0123',
    PIN_PEPPER: 'e2e-pin-pepper-0123456789',
    FISCAL_MASTER_KEY: 'test-fiscal-master-key-0123456789abcdef',
  },
  // Playwright runs the suites under Node, so no Bun-only `import.meta.dir` here.
  seedFile: fileURLToPath(new URL('../.run/seed.json', import.meta.url)),
} as const;

export const apiUrl = (path: string) => `http://127.0.0.1:${E2E.apiPort}${path}`;
export const printerUrl = (path: string) => `http://127.0.0.1:${E2E.printerPort}${path}`;
export const workerUrl = (path: string) => `http://127.0.0.1:${E2E.workerPort}${path}`;
