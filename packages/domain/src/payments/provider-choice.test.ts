import { describe, expect, test } from 'bun:test';
import { DEFAULT_PROVIDERS, isPaymentProvider, onlinePaymentProvider, paymentTimeProvider, reportedInPersonProvider, runningPaymentProvider, stampPaymentProvider } from './provider-choice.ts';

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
  test('a payment profile reports card-a once its card-a account takes charges, else card-b with a card-b account', () => {
    const p = (a: string | null, enabled: boolean, b: string | null) => ({ card_a_account_id: a, card_a_charges_enabled: enabled, card_b_account_id: b });
    expect(reportedInPersonProvider(null)).toBeNull();
    expect(reportedInPersonProvider(p(null, false, null))).toBeNull();
    expect(reportedInPersonProvider(p('acct_1', false, null))).toBeNull();
    expect(reportedInPersonProvider(p('acct_1', false, 'cb_1'))).toBe('card-b');
    expect(reportedInPersonProvider(p('acct_1', true, null))).toBe('card-a');
    expect(reportedInPersonProvider(p('acct_1', true, 'cb_1'))).toBe('card-a');
    expect(reportedInPersonProvider(p(null, false, 'cb_1'))).toBe('card-b');
  });
  test('an active platform-a integration overrides at payment time', () => {
    expect(paymentTimeProvider('card-b', true)).toBe('platform-a');
    expect(paymentTimeProvider('card-a', true)).toBe('platform-a');
    expect(paymentTimeProvider('card-b', false)).toBe('card-b');
    // Online rule 3: register-b integrated pays by card-a; platform-a integrated still comes first.
    expect(onlinePaymentProvider('card-b', { platformAActive: false, registerBActive: true })).toBe('card-a');
    expect(onlinePaymentProvider('card-b', { platformAActive: true, registerBActive: true })).toBe('platform-a');
    expect(onlinePaymentProvider('card-b', { platformAActive: false, registerBActive: false })).toBe('card-b');
    expect(isPaymentProvider('card-b')).toBe(true);
    expect(isPaymentProvider('stripe')).toBe(false);
  });
  test('the provider a payment ran on: the one its start recorded, else the stamp; a marketplace order is its marketplace', () => {
    expect(runningPaymentProvider('card-a', 'platform-a')).toBe('platform-a');
    expect(runningPaymentProvider('card-b', 'platform-a')).toBe('platform-a');
    expect(runningPaymentProvider('card-b', undefined)).toBe('card-b');
    expect(runningPaymentProvider('card-a', 'stripe')).toBe('card-a');
    expect(runningPaymentProvider('delivery-a', 'card-b')).toBe('delivery-a');
  });
});
