import { describe, expect, test } from 'bun:test';
import { DEFAULT_PROVIDERS, isPaymentProvider, paymentTimeProvider, stampPaymentProvider } from './provider-choice.ts';

describe('provider choice', () => {
  test('non-kiosk channels get the default (card-a), whatever the location profile', () => {
    for (const ch of ['online_ordering', 'table_qr', 'pos']) {
      expect(stampPaymentProvider(ch, null, DEFAULT_PROVIDERS)).toBe('card-a');
      expect(stampPaymentProvider(ch, 'card-b', DEFAULT_PROVIDERS)).toBe('card-a');
    }
    expect(stampPaymentProvider('online_ordering', null, { defaultProvider: 'card-b', kioskDefaultProvider: 'card-b' })).toBe('card-b');
  });
  test('kiosk: card-a when the profile reports in-person card-a, else the kiosk default', () => {
    expect(stampPaymentProvider('kiosk', 'card-a', DEFAULT_PROVIDERS)).toBe('card-a');
    expect(stampPaymentProvider('kiosk', null, DEFAULT_PROVIDERS)).toBe('card-b');
    expect(stampPaymentProvider('kiosk', 'platform-a', DEFAULT_PROVIDERS)).toBe('card-b');
    expect(stampPaymentProvider('kiosk', null, { defaultProvider: 'card-a', kioskDefaultProvider: 'card-a' })).toBe('card-a');
  });
  test('an active platform-a integration overrides at payment time', () => {
    expect(paymentTimeProvider('card-b', true)).toBe('platform-a');
    expect(paymentTimeProvider('card-a', true)).toBe('platform-a');
    expect(paymentTimeProvider('card-b', false)).toBe('card-b');
    expect(isPaymentProvider('card-b')).toBe(true);
    expect(isPaymentProvider('stripe')).toBe(false);
  });
});
