import type { TenantDb, TenantTx } from '@pos/db';
import { materialisePrinterSettings, type PrinterProfileSettings } from './printer-profiles.ts';

/**
 * What a printer prints and polls with. A printer bound to a printer profile takes the profile's
 * settings (paper width, poll interval, receipt footer, kitchen modifiers); its own paper width and
 * poll interval (discovery, configure) stay on its row and apply again once it is unbound.
 */
export interface EffectivePrinterSettings {
  /** Null: unknown (discovered without a width, no profile); the renderer prints 80 mm. */
  paper_width_mm: number | null;
  poll_interval_seconds: number;
  receipt_footer: readonly string[];
  print_kitchen_modifiers: boolean;
}

export interface PrinterSettingsSource {
  readonly paper_width_mm: number | null;
  readonly poll_interval_seconds: number;
  readonly printer_profile_id: string | null;
}

export type ProfileSettings = ReadonlyMap<string, PrinterProfileSettings>;

/** The settings of the profiles these printers are bound to, by profile id; no query when none is bound. */
export async function profileSettingsOf(db: TenantDb | TenantTx, printers: readonly PrinterSettingsSource[]): Promise<ProfileSettings> {
  const ids = [...new Set(printers.map((p) => p.printer_profile_id).filter((x): x is string => !!x))];
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('printer_profiles').select(['id', 'settings']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, materialisePrinterSettings(typeof r.settings === 'string' ? JSON.parse(r.settings) : r.settings)]));
}

export function effectiveSettings(p: PrinterSettingsSource, profiles: ProfileSettings): EffectivePrinterSettings {
  const profile = p.printer_profile_id ? profiles.get(p.printer_profile_id) : undefined;
  if (!profile) return { paper_width_mm: p.paper_width_mm, poll_interval_seconds: p.poll_interval_seconds, receipt_footer: [], print_kitchen_modifiers: true };
  return { paper_width_mm: profile.paper_width_mm, poll_interval_seconds: profile.poll_interval_seconds, receipt_footer: profile.receipt_footer, print_kitchen_modifiers: profile.print_kitchen_modifiers };
}

/** One printer's effective settings (one query when it is bound to a profile). */
export async function printerSettings(db: TenantDb | TenantTx, p: PrinterSettingsSource): Promise<EffectivePrinterSettings> {
  return effectiveSettings(p, await profileSettingsOf(db, [p]));
}
