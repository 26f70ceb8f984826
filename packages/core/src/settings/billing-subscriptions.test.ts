import { describe, expect, test } from 'bun:test';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { atProvider, PROVIDER_UNAVAILABLE } from './billing-subscriptions.ts';

const refusedWith = (status: number, message: string) => atProvider(() => Promise.reject(new ProviderError('card-a', 'http', message, status)));

describe('atProvider', () => {
  test("the provider's refusal of the merchant's request is theirs to read (422, its message)", async () => {
    await expect(refusedWith(400, 'The card number is incorrect.')).rejects.toMatchObject({ status: 422, message: 'The card number is incorrect.' });
    await expect(refusedWith(402, 'Your card was declined.')).rejects.toMatchObject({ status: 422, message: 'Your card was declined.' });
  });

  test('our own credentials refused (401, 403) or a rate limit: 503, the text naming our key never shown', async () => {
    for (const status of [401, 403, 429]) {
      const e = await refusedWith(status, 'The provided key rk_live_...abcd does not have the required permissions for this endpoint on account acct_platform.').catch((x: unknown) => x);
      // Before: a 403 answered 422 with that text.
      expect(e).toMatchObject({ status: 503, message: PROVIDER_UNAVAILABLE });
    }
  });
});
