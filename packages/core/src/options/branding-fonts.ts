import { sortByLabel, type OptionItem } from './types.ts';

export type FontCategory = 'sans-serif' | 'serif' | 'display' | 'monospace';

export interface BrandingFontOption extends OptionItem {
  /** CSS font-family name, usable as-is, e.g. `Open Sans`. */
  value: string;
  label: string;
  category: FontCategory;
  /**
   * true: system font shipped with common OSes (no download needed);
   * false: open-licence web font (SIL OFL / Apache 2.0, available on Google Fonts).
   */
  web_safe: boolean;
  /** Ready-to-use CSS `font-family` stack with a generic fallback. */
  stack: string;
}

type FontDef = readonly [family: string, category: FontCategory, webSafe: boolean];

/**
 * Curated list of fonts offered for merchant branding (ordering site, kiosk,
 * receipts). Handwriting/script faces are grouped under `display`.
 * The value is the CSS family name, so it can be stored and emitted directly.
 */
export const BRANDING_FONTS: readonly FontDef[] = Object.freeze([
  // Web-safe system fonts
  ['Arial', 'sans-serif', true],
  ['Helvetica', 'sans-serif', true],
  ['Verdana', 'sans-serif', true],
  ['Tahoma', 'sans-serif', true],
  ['Trebuchet MS', 'sans-serif', true],
  ['Georgia', 'serif', true],
  ['Times New Roman', 'serif', true],
  ['Courier New', 'monospace', true],
  // Open-licence sans-serif
  ['Inter', 'sans-serif', false],
  ['Roboto', 'sans-serif', false],
  ['Open Sans', 'sans-serif', false],
  ['Lato', 'sans-serif', false],
  ['Montserrat', 'sans-serif', false],
  ['Poppins', 'sans-serif', false],
  ['Nunito', 'sans-serif', false],
  ['Raleway', 'sans-serif', false],
  ['Source Sans 3', 'sans-serif', false],
  ['Work Sans', 'sans-serif', false],
  ['DM Sans', 'sans-serif', false],
  ['Rubik', 'sans-serif', false],
  ['Manrope', 'sans-serif', false],
  ['Noto Sans', 'sans-serif', false],
  ['PT Sans', 'sans-serif', false],
  ['Quicksand', 'sans-serif', false],
  // Open-licence serif
  ['Merriweather', 'serif', false],
  ['Playfair Display', 'serif', false],
  ['Lora', 'serif', false],
  ['Roboto Slab', 'serif', false],
  ['Libre Baskerville', 'serif', false],
  ['EB Garamond', 'serif', false],
  ['Noto Serif', 'serif', false],
  ['PT Serif', 'serif', false],
  ['Cormorant Garamond', 'serif', false],
  // Open-licence display / handwriting
  ['Oswald', 'display', false],
  ['Bebas Neue', 'display', false],
  ['Abril Fatface', 'display', false],
  ['Righteous', 'display', false],
  ['Lobster', 'display', false],
  ['Pacifico', 'display', false],
  ['Dancing Script', 'display', false],
  ['Caveat', 'display', false],
  ['Permanent Marker', 'display', false],
  // Open-licence monospace
  ['Roboto Mono', 'monospace', false],
  ['Source Code Pro', 'monospace', false],
  ['JetBrains Mono', 'monospace', false],
  ['IBM Plex Mono', 'monospace', false],
] as const);

const GENERIC_FALLBACK: Readonly<Record<FontCategory, string>> = {
  'sans-serif': 'sans-serif',
  serif: 'serif',
  // Display faces are mostly sans-based; `cursive` renders unpredictably.
  display: 'sans-serif',
  monospace: 'monospace',
};

/** Branding fonts sorted by label. */
export function brandingFontOptions(): BrandingFontOption[] {
  return sortByLabel(
    BRANDING_FONTS.map(([family, category, webSafe]) => ({
      value: family,
      label: family,
      category,
      web_safe: webSafe,
      stack: `${/\s/.test(family) ? `'${family}'` : family}, ${GENERIC_FALLBACK[category]}`,
    })),
  );
}
