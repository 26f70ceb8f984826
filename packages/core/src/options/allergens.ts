import type { OptionItem } from './types.ts';

export interface AllergenOption extends OptionItem {
  /** Stable slug, e.g. `gluten`. */
  value: AllergenSlug;
  /** Short English label, e.g. `Cereals containing gluten`. */
  label: string;
  /** Position (1–14) in Annex II of Regulation (EU) No 1169/2011. */
  annex_ii: number;
  /** Abridged wording of the Annex II entry. */
  description: string;
}

/**
 * The 14 substances or products causing allergies or intolerances that must be
 * declared under Regulation (EU) No 1169/2011 (Food Information to Consumers),
 * Annex II. Slugs are stable identifiers stored with menu items: never rename.
 *
 * Order: the Annex II numbering (1–14), NOT alphabetical. Menus and kitchen
 * tickets commonly refer to allergens by this number, so the natural order is
 * kept on purpose.
 */
export const ALLERGENS = Object.freeze([
  {
    value: 'gluten',
    label: 'Cereals containing gluten',
    annex_ii: 1,
    description:
      'Wheat (such as spelt and khorasan wheat), rye, barley, oats or their hybridised strains, and products thereof',
  },
  { value: 'crustaceans', label: 'Crustaceans', annex_ii: 2, description: 'Crustaceans and products thereof' },
  { value: 'eggs', label: 'Eggs', annex_ii: 3, description: 'Eggs and products thereof' },
  { value: 'fish', label: 'Fish', annex_ii: 4, description: 'Fish and products thereof' },
  { value: 'peanuts', label: 'Peanuts', annex_ii: 5, description: 'Peanuts and products thereof' },
  { value: 'soybeans', label: 'Soybeans', annex_ii: 6, description: 'Soybeans and products thereof' },
  { value: 'milk', label: 'Milk', annex_ii: 7, description: 'Milk and products thereof (including lactose)' },
  {
    value: 'nuts',
    label: 'Nuts',
    annex_ii: 8,
    description:
      'Almonds, hazelnuts, walnuts, cashews, pecan nuts, Brazil nuts, pistachio nuts, macadamia or Queensland nuts, and products thereof',
  },
  { value: 'celery', label: 'Celery', annex_ii: 9, description: 'Celery and products thereof' },
  { value: 'mustard', label: 'Mustard', annex_ii: 10, description: 'Mustard and products thereof' },
  { value: 'sesame', label: 'Sesame seeds', annex_ii: 11, description: 'Sesame seeds and products thereof' },
  {
    value: 'sulphites',
    label: 'Sulphur dioxide and sulphites',
    annex_ii: 12,
    description: 'Sulphur dioxide and sulphites at concentrations of more than 10 mg/kg or 10 mg/litre in terms of total SO2',
  },
  { value: 'lupin', label: 'Lupin', annex_ii: 13, description: 'Lupin and products thereof' },
  { value: 'molluscs', label: 'Molluscs', annex_ii: 14, description: 'Molluscs and products thereof' },
] as const);

export type AllergenSlug = (typeof ALLERGENS)[number]['value'];

export const ALLERGEN_SLUGS: readonly AllergenSlug[] = Object.freeze(ALLERGENS.map((a) => a.value));

export function isAllergenSlug(value: unknown): value is AllergenSlug {
  return typeof value === 'string' && (ALLERGEN_SLUGS as readonly string[]).includes(value);
}

/** The 14 EU allergens in Annex II order (see {@link ALLERGENS}). */
export function allergenOptions(): AllergenOption[] {
  return ALLERGENS.map((a) => ({ ...a }));
}
