import ISO6391 from 'iso-639-1';
import { sortByLabel, type OptionItem } from './types.ts';

export interface LanguageOption extends OptionItem {
  /** ISO 639-1 two-letter code, e.g. `nl`. */
  value: string;
  /** English name, e.g. `Dutch`. */
  label: string;
  /** Native name, e.g. `Nederlands`. */
  native: string;
}

let cache: readonly LanguageOption[] | undefined;

/** All ISO 639-1 languages, sorted by English label. */
export function langOptions(): LanguageOption[] {
  cache ??= Object.freeze(
    sortByLabel(
      ISO6391.getLanguages(ISO6391.getAllCodes()).map((l) => ({
        value: l.code,
        label: l.name,
        native: l.nativeName,
      })),
    ),
  );
  return cache.map((l) => ({ ...l }));
}

/** True for a code of {@link langOptions} (`GET /lang-options`, ISO 639-1), in either case: `nl`, `NL`. */
export function isLanguageCode(code: string): boolean {
  return ISO6391.validate(code.toLowerCase());
}
