export type { OptionItem } from './types.ts';
export { compareByLabel, sortByLabel } from './types.ts';
export {
  countryOptions,
  isCountryCode,
  callingCodeFor,
  PAYMENT_PROFILE_COUNTRIES,
  type CountryOption,
  type CountryOptionsParams,
  type CountryOptionsLang,
} from './countries.ts';
export { langOptions, isLanguageCode, type LanguageOption } from './languages.ts';
export { callingCodeOptions, type CallingCodeOption } from './calling-codes.ts';
export {
  allergenOptions,
  isAllergenSlug,
  ALLERGENS,
  ALLERGEN_SLUGS,
  type AllergenOption,
  type AllergenSlug,
} from './allergens.ts';
export {
  dietaryPreferenceOptions,
  dietarySupplementOptions,
  DIETARY_PREFERENCES,
  DIETARY_SUPPLEMENTS,
  type DietaryOption,
  type DietaryPreferenceSlug,
  type DietarySupplementSlug,
} from './dietary.ts';
export { tagOptions, MENU_TAGS, type MenuTagSlug } from './tags.ts';
export {
  brandingFontOptions,
  BRANDING_FONTS,
  type BrandingFontOption,
  type FontCategory,
} from './branding-fonts.ts';
