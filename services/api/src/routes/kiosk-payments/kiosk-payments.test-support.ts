import { afterAll, beforeAll } from 'bun:test';
import { startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** The providers' credentials of a kiosk testbed (the API's environment and the simulators take them). */
export interface KioskCreds {
  readonly CARD_B_CLIENT_ID: string;
  readonly CARD_B_CLIENT_SECRET: string;
  readonly CARD_A_SECRET_KEY: string;
  readonly PLATFORM_A_ACCESS_TOKEN: string;
}

/** A test API whose kiosk payments reach fresh card-b, card-a and platform-a simulators over HTTP. */
export interface KioskTestbed {
  readonly cardB: CardBSimulator;
  readonly cardA: CardASimulator;
  readonly platformA: PlatformASimulator;
  readonly api: TestApi;
  /** The demo merchant, seeded as `seed`. */
  readonly m: DemoSeedResult;
  /** Its kiosk's device token. */
  readonly kiosk: string;
  readonly creds: KioskCreds;
}

/**
 * Registers the file's `beforeAll` (simulators, API, seed, kiosk token, then `ready` with them) and
 * `afterAll` (the API closed, the simulators stopped). `seed` names the merchant and the credentials (each
 * file its own); `env` adds to the API's environment; `listen` also serves the API on a port the system
 * picks (for a simulator's webhooks), stopped first.
 */
export function kioskTestbed(seed: string, ready: (bed: KioskTestbed) => void, opts: { readonly env?: Record<string, string>; readonly listen?: boolean } = {}): void {
  const creds: KioskCreds = { CARD_B_CLIENT_ID: `${seed}-test`, CARD_B_CLIENT_SECRET: `${seed}-test-secret`, CARD_A_SECRET_KEY: `sk_test_${seed}`, PLATFORM_A_ACCESS_TOKEN: `pa-${seed}-token` };
  let bed: KioskTestbed | undefined;
  let server: { stop(): unknown } | undefined;
  beforeAll(async () => {
    const cardB = startCardBSimulator({ clientId: creds.CARD_B_CLIENT_ID, clientSecret: creds.CARD_B_CLIENT_SECRET });
    const cardA = startCardASimulator({ secretKey: creds.CARD_A_SECRET_KEY });
    const platformA = startPlatformASimulator({ accessToken: creds.PLATFORM_A_ACCESS_TOKEN });
    const api = await createTestApi({ env: { ...creds, CARD_B_BASE_URL: cardB.url, CARD_A_BASE_URL: cardA.url, PLATFORM_A_BASE_URL: platformA.url, ...opts.env } });
    if (opts.listen) server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
    const m = await api.seed(seed);
    bed = { cardB, cardA, platformA, api, m, kiosk: await api.deviceToken(m, 'kiosk'), creds };
    ready(bed);
  });
  afterAll(async () => {
    await server?.stop();
    if (!bed) return;
    await bed.api.close();
    await Promise.all([bed.cardB.stop(), bed.cardA.stop(), bed.platformA.stop()]);
  });
}
