import { sortByLabel, type OptionItem } from './types.ts';

/**
 * Merchandising tags a merchant can put on menu items (badges / filters in the
 * ordering frontends). Dietary facts belong in dietary.ts and allergens in
 * allergens.ts, not here. Slugs are stable identifiers; labels may change.
 */
export const MENU_TAGS = Object.freeze([
  { value: 'new', label: 'New' },
  { value: 'popular', label: 'Popular' },
  { value: 'bestseller', label: 'Bestseller' },
  { value: 'recommended', label: 'Recommended' },
  { value: 'chef_special', label: "Chef's special" },
  { value: 'signature', label: 'Signature dish' },
  { value: 'daily_special', label: 'Daily special' },
  { value: 'seasonal', label: 'Seasonal' },
  { value: 'limited', label: 'Limited edition' },
  { value: 'spicy', label: 'Spicy' },
  { value: 'extra_spicy', label: 'Extra spicy' },
  { value: 'homemade', label: 'Homemade' },
  { value: 'local', label: 'Locally sourced' },
  { value: 'healthy', label: 'Healthy' },
  { value: 'kids', label: 'Kids' },
  { value: 'sharing', label: 'For sharing' },
] as const);

export type MenuTagSlug = (typeof MENU_TAGS)[number]['value'];

/** Menu tags sorted by label. */
export function tagOptions(): OptionItem[] {
  return sortByLabel(MENU_TAGS.map((t) => ({ ...t })));
}
