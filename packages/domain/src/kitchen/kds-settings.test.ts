import { describe, expect, test } from 'bun:test';
import { KDS_DEFAULT_SETTINGS, kdsSettingsErrors, materialiseKdsSettings } from './kds-settings.ts';

describe('KDS settings', () => {
  test('errors name each bad or unknown key under settings.', () => {
    expect(kdsSettingsErrors({ recall_window_minutes: 30, late_after_minutes: 240, sort: 'oldest_first', show_modifiers: false, play_sound: true })).toBeNull();
    expect(kdsSettingsErrors({ recall_window_minutes: 0, late_after_minutes: 2.5, sort: 'bogus', play_sound: 'yes', columns: 4 })).toEqual({
      'settings.recall_window_minutes': ['The recall window minutes field must be a whole number between 1 and 1440.'],
      'settings.late_after_minutes': ['The late after minutes field must be a whole number between 1 and 240.'],
      'settings.sort': ['The selected sort is invalid.'],
      'settings.play_sound': ['The play sound field must be true or false.'],
      'settings.columns': ['The settings.columns field is not a KDS setting.'],
    });
  });

  test('stored values out of bounds fall back to the defaults, so a screen always reads valid settings', () => {
    expect(materialiseKdsSettings({ recall_window_minutes: -5, late_after_minutes: 100000, sort: 'bogus', show_modifiers: false, extra: 1 })).toEqual({ ...KDS_DEFAULT_SETTINGS, show_modifiers: false });
    expect(materialiseKdsSettings(null)).toEqual({ ...KDS_DEFAULT_SETTINGS });
  });
});
