import { Elysia, t } from 'elysia';
import {
  allergenOptions,
  brandingFontOptions,
  callingCodeOptions,
  countryOptions,
  dietaryPreferenceOptions,
  dietarySupplementOptions,
  langOptions,
  tagOptions,
} from '@pos/core/options/index';

const Option = t.Object({ value: t.String(), label: t.String() }, { additionalProperties: true });
const List = t.Object({ data: t.Array(Option) });
const doc = (summary: string) => ({ response: { 200: List }, detail: { summary, tags: ['Public'] } });

/** Public option lists (spec 1 "Public (no token)"), answered as `{data:[{value,label,...}]}`. */
export function publicOptionRoutes() {
  return new Elysia({ name: 'public-options' })
    .get('/country-options', () => ({ data: countryOptions() }), doc('Countries'))
    .get(
      '/country-options/:forPaymentProfile',
      ({ params }) => ({ data: countryOptions({ forPaymentProfile: params.forPaymentProfile !== '0' && params.forPaymentProfile !== 'false' }) }),
      { params: t.Object({ forPaymentProfile: t.String({ maxLength: 16 }) }), ...doc('Countries where a payment profile can be onboarded') },
    )
    .get('/lang-options', () => ({ data: langOptions() }), doc('Languages (ISO 639-1)'))
    .get('/calling-code-options', () => ({ data: callingCodeOptions() }), doc('International calling codes'))
    .get('/branding-font-options', () => ({ data: brandingFontOptions() }), doc('Branding fonts'))
    .get('/allergens-options', () => ({ data: allergenOptions() }), doc('The 14 EU-regulated allergens'))
    .get('/dietary-preferences-options', () => ({ data: dietaryPreferenceOptions() }), doc('Dietary preferences'))
    .get('/dietary-supplements-options', () => ({ data: dietarySupplementOptions() }), doc('Dietary supplements and additives'))
    .get('/tags-options', () => ({ data: tagOptions() }), doc('Menu tags'));
}
