import { DEFAULT_RECALL_WINDOW_MS } from './kds-order-state.ts';

/** A kitchen display's settings (a KDS profile's, spec 2 `/kds-profiles`): the rules, without I/O. */
export interface KdsDisplaySettings {
  /** Minutes after completion during which an order may be recalled. */
  recall_window_minutes: number;
  /** An open order older than this many minutes counts as late. */
  late_after_minutes: number;
  /** Ticket order on the screen. */
  sort: 'oldest_first' | 'priority_first';
  /** Show modifiers under each line. */
  show_modifiers: boolean;
  /** Chime when a ticket arrives. */
  play_sound: boolean;
}

export const KDS_DEFAULT_SETTINGS: Readonly<KdsDisplaySettings> = {
  recall_window_minutes: DEFAULT_RECALL_WINDOW_MS / 60_000,
  late_after_minutes: 15,
  sort: 'priority_first',
  show_modifiers: true,
  play_sound: true,
};

/** The bounds of the minute settings (whole minutes, from 1): the typed route's schema and every writer use these. */
export const KDS_MINUTES_MAX = { recall_window_minutes: 1440, late_after_minutes: 240 } as const;
export const KDS_SORTS = ['oldest_first', 'priority_first'] as const;

/** The refusal message of each setting, as the typed route words it. */
export const KDS_SETTING_MESSAGES: Readonly<Record<keyof KdsDisplaySettings, string>> = {
  recall_window_minutes: `The recall window minutes field must be a whole number between 1 and ${KDS_MINUTES_MAX.recall_window_minutes}.`,
  late_after_minutes: `The late after minutes field must be a whole number between 1 and ${KDS_MINUTES_MAX.late_after_minutes}.`,
  sort: 'The selected sort is invalid.',
  show_modifiers: 'The show modifiers field must be true or false.',
  play_sound: 'The play sound field must be true or false.',
};

function validSetting(k: keyof KdsDisplaySettings, v: unknown): boolean {
  switch (k) {
    case 'recall_window_minutes':
    case 'late_after_minutes':
      return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= KDS_MINUTES_MAX[k];
    case 'sort':
      return (KDS_SORTS as readonly unknown[]).includes(v);
    case 'show_modifiers':
    case 'play_sound':
      return typeof v === 'boolean';
  }
}

const isKdsKey = (k: string): k is keyof KdsDisplaySettings => Object.hasOwn(KDS_DEFAULT_SETTINGS, k);

/**
 * The field errors (`settings.<key>`) of settings that are not all KDS settings within their bounds
 * (an unknown key is refused too), or null. Every writer of a `kds` profile checks with this, the
 * generic device-profile routes as the typed `/kds-profiles` route's schema: a screen must never read
 * settings its own answer refuses.
 */
export function kdsSettingsErrors(settings: Record<string, unknown>): Record<string, string[]> | null {
  const bad: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(settings)) {
    if (!isKdsKey(k)) bad[`settings.${k}`] = [`The settings.${k} field is not a KDS setting.`];
    else if (!validSetting(k, v)) bad[`settings.${k}`] = [KDS_SETTING_MESSAGES[k]];
  }
  return Object.keys(bad).length ? bad : null;
}

/**
 * Stored settings over the defaults: unknown keys are dropped, and so is a value out of its bounds
 * (a row written before the bounds were enforced on every route), so the screen's settings always load.
 */
export function materialiseKdsSettings(stored: Record<string, unknown> | null | undefined): KdsDisplaySettings {
  const out = { ...KDS_DEFAULT_SETTINGS };
  for (const k of Object.keys(KDS_DEFAULT_SETTINGS) as (keyof KdsDisplaySettings)[]) {
    const v = stored?.[k];
    if (v !== undefined && validSetting(k, v)) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
