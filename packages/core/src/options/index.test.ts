import { expect, test } from 'bun:test';
import * as options from './index.ts';

test('index re-exports every option builder', () => {
  for (const fn of [
    options.countryOptions,
    options.langOptions,
    options.callingCodeOptions,
    options.allergenOptions,
    options.dietaryPreferenceOptions,
    options.dietarySupplementOptions,
    options.tagOptions,
    options.brandingFontOptions,
  ]) {
    expect(typeof fn).toBe('function');
    expect(Array.isArray(fn())).toBe(true);
  }
});
