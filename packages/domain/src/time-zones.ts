/**
 * IANA zone check against the runtime's zone database (ICU). Only named zones (`Europe/Brussels`,
 * `UTC`, links such as `Europe/Kiev`), never bare offsets (`+01:00`). Answers the zone's name as the
 * database spells it (`europe/brussels` -> `Europe/Brussels`), or null for an unknown zone.
 */
export function ianaZone(tz: unknown): string | null {
  if (typeof tz !== 'string' || tz.length === 0 || tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
    return /^[A-Za-z]/.test(resolved) ? resolved : null;
  } catch {
    return null;
  }
}
