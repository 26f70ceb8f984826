import { afterAll, beforeAll } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, startCardBSimulator, type CardASimulator, type CardBSimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Two storefronts over real PostgreSQL, Redis and the simulators over HTTP: merchant `a` pays on card-a
 * (intents and hosted checkout) through `apiA`, merchant `b` on card-b's hosted checkout through `apiB`.
 */
export interface StorefrontTestbed {
  readonly cardA: CardASimulator;
  readonly cardB: CardBSimulator;
  readonly apiA: TestApi;
  readonly apiB: TestApi;
  readonly a: DemoSeedResult;
  readonly b: DemoSeedResult;
  /** card-a's secret key (its API, the simulator's included, takes it as the bearer). */
  readonly cardAKey: string;
}

export interface StorefrontTestbedOptions {
  /** Added to `apiA`'s environment, read once the earlier `beforeAll`s ran (a simulator they started). */
  readonly envA?: () => Record<string, string>;
  readonly envB?: () => Record<string, string>;
}

/**
 * Registers the file's `beforeAll` (both simulators, both APIs, the merchants `{seed}-a` and `{seed}-b`,
 * then `ready` with them) and `afterAll` (card-a's pending webhooks delivered, the APIs closed, the
 * simulators stopped). `name` names the credentials (each file its own).
 */
export function storefrontTestbed(name: string, seed: string, ready: (bed: StorefrontTestbed) => void, opts: StorefrontTestbedOptions = {}): void {
  const cardAKey = `sk_test_oo_${name}`;
  const cardBClient = { clientId: `oo-${name}`, clientSecret: `oo-${name}-secret` };
  let bed: StorefrontTestbed | undefined;
  beforeAll(async () => {
    const cardA = startCardASimulator({ secretKey: cardAKey, webhookSecret: `whsec_oo_${name}_0123` });
    const cardB = startCardBSimulator(cardBClient);
    const apiA = await createTestApi({ env: { CARD_A_BASE_URL: cardA.url, CARD_A_SECRET_KEY: cardAKey, ...opts.envA?.() } });
    const apiB = await createTestApi({
      env: { CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: cardBClient.clientId, CARD_B_CLIENT_SECRET: cardBClient.clientSecret, PAYMENT_DEFAULT_PROVIDER: 'card-b', ...opts.envB?.() },
    });
    bed = { cardA, cardB, apiA, apiB, a: await apiA.seed(`${seed}-a`), b: await apiB.seed(`${seed}-b`), cardAKey };
    ready(bed);
  }, 60_000);
  afterAll(async () => {
    if (!bed) return;
    await bed.cardA.idle();
    await bed.apiA.close();
    await bed.apiB.close();
    await bed.cardA.stop();
    await bed.cardB.stop();
  });
}

/** A client address of its own per test (throttle windows outlive a run). */
export const someAddress = () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
