import { createHash } from 'node:crypto';
import { test as base } from '@playwright/test';

export * from '@playwright/test';

/**
 * The suites stand behind a load balancer, as production does: the stack trusts 127.0.0.1 as its
 * proxy (`TRUSTED_PROXIES`) and each test, or each simulated device, comes from its own client
 * address in `X-Forwarded-For`. Per-address throttles (device activation, sign-in) then count each
 * client, not the whole suite run.
 */
export function clientAddressFor(key: string): string {
  const h = createHash('sha256').update(key).digest();
  return `10.${h[0]}.${h[1]}.${(h[2]! % 254) + 1}`;
}

export const test = base.extend({
  extraHTTPHeaders: async ({}, use, testInfo) => {
    await use({ 'x-forwarded-for': clientAddressFor(testInfo.testId) });
  },
});
