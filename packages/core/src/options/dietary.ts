import { sortByLabel, type OptionItem } from './types.ts';

export interface DietaryOption extends OptionItem {
  description: string;
}

/**
 * Dietary preferences a dish can satisfy (customer-facing filters / badges).
 * Slugs are stable identifiers; labels may change.
 *
 * Scope: the lifestyle/religious diets (vegetarian, vegan, pescatarian, halal,
 * kosher) and the common "free-from" / nutrition claims customers filter on.
 * The "free-from" entries are marketing/filter attributes set by the merchant,
 * not a substitute for the legally required allergen declaration (see
 * allergens.ts). Where an EU legal definition exists it is noted:
 * gluten_free — Implementing Regulation (EU) No 828/2014 (≤ 20 mg/kg gluten);
 * sugar_free / low_sugar — Regulation (EC) No 1924/2006 Annex (nutrition claims).
 */
export const DIETARY_PREFERENCES = Object.freeze([
  { value: 'vegetarian', label: 'Vegetarian', description: 'No meat or fish' },
  { value: 'vegan', label: 'Vegan', description: 'No animal products' },
  { value: 'pescatarian', label: 'Pescatarian', description: 'No meat; fish and seafood allowed' },
  { value: 'halal', label: 'Halal', description: 'Prepared according to Islamic dietary law' },
  { value: 'kosher', label: 'Kosher', description: 'Prepared according to Jewish dietary law' },
  { value: 'gluten_free', label: 'Gluten-free', description: 'No more than 20 mg/kg gluten' },
  { value: 'lactose_free', label: 'Lactose-free', description: 'No lactose' },
  { value: 'dairy_free', label: 'Dairy-free', description: 'No milk or milk products' },
  { value: 'egg_free', label: 'Egg-free', description: 'No eggs or egg products' },
  { value: 'nut_free', label: 'Nut-free', description: 'No tree nuts or peanuts' },
  { value: 'soy_free', label: 'Soy-free', description: 'No soybeans or soy products' },
  { value: 'sugar_free', label: 'Sugar-free', description: 'No more than 0.5 g sugars per 100 g or 100 ml' },
  { value: 'low_carb', label: 'Low-carb', description: 'Reduced carbohydrate content' },
  { value: 'keto', label: 'Keto', description: 'Very low carbohydrate, high fat' },
  { value: 'organic', label: 'Organic', description: 'Made with certified organic ingredients' },
  { value: 'raw', label: 'Raw', description: 'Not heated above 42 °C' },
] as const);

export type DietaryPreferenceSlug = (typeof DIETARY_PREFERENCES)[number]['value'];

/**
 * Additives and other ingredients that must be indicated on menus, i.e. the
 * German/EU "Zusatzstoffe" labelling as it appears on restaurant menus and
 * drink cards (usually as footnote numbers). Sources:
 *  - Lebensmittelzusatzstoff-Durchführungsverordnung (LMZDV), which replaced
 *    § 9 Zusatzstoff-Zulassungsverordnung (ZZulV): "mit Farbstoff", "mit
 *    Konservierungsstoff", "mit Antioxidationsmittel", "mit
 *    Geschmacksverstärker", "geschwefelt", "geschwärzt", "gewachst", "mit
 *    Phosphat", "mit Süßungsmittel(n)", "enthält eine Phenylalaninquelle",
 *    "kann bei übermäßigem Verzehr abführend wirken";
 *  - "koffeinhaltig" / "chininhaltig": former Aromenverordnung, today also
 *    Regulation (EU) No 1169/2011 Annex III (caffeine);
 *  - Regulation (EC) No 1333/2008 Annex V (azo colourings warning);
 *  - "contains alcohol": Regulation (EU) No 1169/2011 Art. 9(1)(k) (alcoholic
 *    strength of beverages > 1.2 % vol) and youth-protection display.
 */
export const DIETARY_SUPPLEMENTS = Object.freeze([
  { value: 'with_colourings', label: 'With colourings', description: 'mit Farbstoff' },
  {
    value: 'with_azo_colourings',
    label: 'With azo colourings',
    description: 'May have an adverse effect on activity and attention in children',
  },
  { value: 'with_preservatives', label: 'With preservatives', description: 'mit Konservierungsstoff' },
  { value: 'with_antioxidants', label: 'With antioxidants', description: 'mit Antioxidationsmittel' },
  { value: 'with_flavour_enhancers', label: 'With flavour enhancers', description: 'mit Geschmacksverstärker' },
  { value: 'sulphured', label: 'Sulphured', description: 'geschwefelt' },
  { value: 'blackened', label: 'Blackened', description: 'geschwärzt (e.g. black olives)' },
  { value: 'waxed', label: 'Waxed', description: 'gewachst (e.g. citrus peel)' },
  { value: 'with_phosphate', label: 'With phosphate', description: 'mit Phosphat' },
  { value: 'with_sweeteners', label: 'With sweeteners', description: 'mit Süßungsmittel(n)' },
  {
    value: 'contains_phenylalanine',
    label: 'Contains a source of phenylalanine',
    description: 'enthält eine Phenylalaninquelle (aspartame)',
  },
  {
    value: 'laxative_if_excessive',
    label: 'May have a laxative effect if consumed in excess',
    description: 'kann bei übermäßigem Verzehr abführend wirken (polyols)',
  },
  { value: 'contains_caffeine', label: 'Contains caffeine', description: 'koffeinhaltig' },
  { value: 'contains_quinine', label: 'Contains quinine', description: 'chininhaltig' },
  { value: 'contains_alcohol', label: 'Contains alcohol', description: 'alkoholhaltig' },
] as const);

export type DietarySupplementSlug = (typeof DIETARY_SUPPLEMENTS)[number]['value'];

/** Dietary preferences sorted by label. */
export function dietaryPreferenceOptions(): DietaryOption[] {
  return sortByLabel(DIETARY_PREFERENCES.map((d) => ({ ...d })));
}

/** Additive / "Zusatzstoffe" declarations sorted by label. */
export function dietarySupplementOptions(): DietaryOption[] {
  return sortByLabel(DIETARY_SUPPLEMENTS.map((d) => ({ ...d })));
}
