import { defineConfig } from '@playwright/test';
import { E2E } from './support/stack-env.ts';

/** End-to-end suites: the three real services over HTTP, started on a fresh database. */
export default defineConfig({
  testDir: './tests',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [['list'], ['json', { outputFile: '.run/results.json' }]],
  use: { baseURL: `http://127.0.0.1:${E2E.apiPort}` },
  // The day suite closes the business day (Z), so it runs after every other suite.
  projects: [
    { name: 'platform', testIgnore: /register-day\.spec\.ts/ },
    { name: 'day-close', testMatch: /register-day\.spec\.ts/, dependencies: ['platform'] },
  ],
  webServer: {
    command: 'bun e2e/support/start-stack.ts',
    cwd: '..',
    url: `http://127.0.0.1:${E2E.stackPort}/ready`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
