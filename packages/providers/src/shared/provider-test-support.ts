import { expect } from 'bun:test';
import { ProviderError } from './provider-error.ts';

/** The ProviderError `p` rejects with (a test fails if it resolves or throws something else). */
export async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ProviderError);
    return e as ProviderError;
  }
  throw new Error('expected a ProviderError');
}
