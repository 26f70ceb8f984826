import { describe, expect, test } from 'bun:test';
import { devWebhookEnv } from './dev-webhooks.ts';

const ALL = new Set(['CARD_A_BASE_URL', 'CARD_B_BASE_URL', 'PLATFORM_A_BASE_URL', 'REGISTER_A_BASE_URL']);
let n = 0;
/** Predictable "random" secrets: the length and a counter. */
const secret = (length: number) => `s${length}-${++n}`;

describe("bun run dev: the simulators' webhooks", () => {
  test('every payment simulator dev starts posts to the API route of its provider, with the secret the API checks', () => {
    n = 0;
    expect(devWebhookEnv({ API_PORT: '3050' }, ALL, secret)).toEqual({
      DELIVERY_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/webhook/delivery-a/orders',
      DELIVERY_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/webhook/delivery-b',
      CARD_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/card-a-webhook/BE',
      CARD_A_WEBHOOK_SECRET: 'whsec_s32-1',
      CARD_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/card-b-webhook/BE/1796',
      CARD_B_WEBHOOK_KEY: 's32-2',
      CARD_B_WEBHOOK_IPS: '127.0.0.1',
      PLATFORM_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/webhook/platform-a',
      PLATFORM_A_WEBHOOK_URL: 'http://127.0.0.1:3050/api/webhook/platform-a',
      PLATFORM_A_WEBHOOK_SIGNATURE_KEY: 's32-3',
      REGISTER_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3050/api/webhook/register-a',
    });
  });

  test('the API port defaults to 3000; variables already set win, and platform-a signs with the URL the API checks', () => {
    n = 0;
    const env = { CARD_B_WEBHOOK_KEY: 'from-dot-env-key', PLATFORM_A_WEBHOOK_URL: 'https://tunnel.example/api/webhook/platform-a', CARD_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/card-a-webhook/NL' };
    expect(devWebhookEnv(env, ALL, secret)).toEqual({
      DELIVERY_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhook/delivery-a/orders',
      DELIVERY_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhook/delivery-b',
      CARD_A_WEBHOOK_SECRET: 'whsec_s32-1',
      CARD_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/card-b-webhook/BE/1796',
      CARD_B_WEBHOOK_IPS: '127.0.0.1',
      PLATFORM_A_SIM_WEBHOOK_URL: 'https://tunnel.example/api/webhook/platform-a',
      PLATFORM_A_WEBHOOK_SIGNATURE_KEY: 's32-3',
      REGISTER_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhook/register-a',
    });
  });

  test('a provider reached at a real address keeps its own webhook settings', () => {
    n = 0;
    expect(devWebhookEnv({}, new Set(['CARD_B_BASE_URL']), secret)).toEqual({
      DELIVERY_A_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhook/delivery-a/orders',
      DELIVERY_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/webhook/delivery-b',
      CARD_B_SIM_WEBHOOK_URL: 'http://127.0.0.1:3000/api/card-b-webhook/BE/1796',
      CARD_B_WEBHOOK_KEY: 's32-1',
      CARD_B_WEBHOOK_IPS: '127.0.0.1',
    });
  });
});
