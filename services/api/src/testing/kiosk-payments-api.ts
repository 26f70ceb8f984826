import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardASimulator, startCardBSimulator, type CardASimulator, type CardBSimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from './harness.ts';

/** A test API whose kiosk payments reach fresh card-a and card-b simulators, with a demo merchant, its kiosk and its owner. */
export interface KioskPaymentsApi {
  readonly api: TestApi;
  readonly cardA: CardASimulator;
  readonly cardB: CardBSimulator;
  readonly m: DemoSeedResult;
  /** The kiosk's device token and the owner's back-office token. */
  readonly kiosk: string;
  readonly owner: string;
  close(): Promise<void>;
}

/** `name` names the seed and the providers' credentials (each file its own). */
export async function startKioskPaymentsApi(name: string): Promise<KioskPaymentsApi> {
  const creds = { CARD_B_CLIENT_ID: name, CARD_B_CLIENT_SECRET: `${name}-secret`, CARD_A_SECRET_KEY: `sk_test_${name}` };
  const cardB = startCardBSimulator({ clientId: creds.CARD_B_CLIENT_ID, clientSecret: creds.CARD_B_CLIENT_SECRET });
  const cardA = startCardASimulator({ secretKey: creds.CARD_A_SECRET_KEY });
  const api = await createTestApi({ env: { ...creds, CARD_B_BASE_URL: cardB.url, CARD_A_BASE_URL: cardA.url } });
  const m = await api.seed(name);
  return {
    api,
    cardA,
    cardB,
    m,
    kiosk: await api.deviceToken(m, 'kiosk'),
    owner: await api.ownerToken(m),
    async close() {
      await api.close();
      await Promise.all([cardB.stop(), cardA.stop()]);
    },
  };
}
