import { describe, expect, test } from 'bun:test';
import { REDACTED, isSensitiveKey, redactSecrets } from './secret-redaction.ts';

describe('redactSecrets', () => {
  test('secrets and card data at any depth read [redacted]; ids, amounts, brand and last4 stay', () => {
    const event = {
      id: 'evt_1',
      data: {
        object: {
          id: 'pi_1',
          client_secret: 'pi_1_secret_abc',
          amount: 450,
          charges: { data: [{ payment_method_details: { card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, fingerprint: 'fp_x' } } }] },
          metadata: { location_id: 'loc' },
        },
      },
    };
    expect(redactSecrets(event)).toEqual({
      id: 'evt_1',
      data: {
        object: {
          id: 'pi_1',
          client_secret: REDACTED,
          amount: 450,
          charges: { data: [{ payment_method_details: { card: { brand: 'visa', last4: '4242', exp_month: REDACTED, exp_year: REDACTED, fingerprint: REDACTED } } }] },
          metadata: { location_id: 'loc' },
        },
      },
    });
    expect(redactSecrets({ EventData: { CardNumber: '4111111111111111', OrderCode: '1234567890123456', Amount: 2.8, CardExpirationDate: '2030-12' } })).toEqual({
      EventData: { CardNumber: REDACTED, OrderCode: '1234567890123456', Amount: 2.8, CardExpirationDate: REDACTED },
    });
  });

  test('a "__proto__" member of a provider payload stays a member of the copy, redacted within, and is not its prototype', () => {
    const parsed = JSON.parse('{"id":"evt_1","__proto__":{"amount":500,"client_secret":"cs_1"},"data":{"ok":1}}');
    const out = redactSecrets(parsed) as Record<string, unknown>;
    expect(JSON.parse(JSON.stringify(out))).toEqual(JSON.parse('{"id":"evt_1","__proto__":{"amount":500,"client_secret":"[redacted]"},"data":{"ok":1}}'));
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { amount?: number }).amount).toBeUndefined();
  });

  test('key spellings; null kept null; scalars and arrays of scalars unchanged', () => {
    for (const k of ['client_secret', 'ClientSecret', 'webhook-secret', 'access_token', 'refreshToken', 'card_number', 'X-Signature', 'CVV', 'pan', 'apiKey']) expect(isSensitiveKey(k)).toBe(true);
    for (const k of ['id', 'last4', 'brand', 'amount', 'order_code', 'panel', 'expires_at', 'status', 'event_type']) expect(isSensitiveKey(k)).toBe(false);
    expect(redactSecrets({ token: null, list: [1, 'a'] })).toEqual({ token: null, list: [1, 'a'] });
    expect(redactSecrets('text')).toBe('text');
    expect(redactSecrets(null)).toBe(null);
  });
});
