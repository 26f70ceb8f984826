import { ConfigError } from '@pos/kernel';
import type { TenantDb } from '@pos/db';

/** One platform's entry of `KIOSK_UPDATE_MANIFEST`. */
export interface ManifestEntry {
  readonly version: string;
  readonly url: string;
  /** Older than this must update before taking orders. */
  readonly min_version: string | null;
  readonly notes: string | null;
}
export type KioskUpdateManifest = Readonly<Record<string, ManifestEntry>>;

const SEMVER = /^\d{1,6}(\.\d{1,6}){0,3}$/;

/**
 * Reads `KIOSK_UPDATE_MANIFEST`: a JSON object platform -> `{version, url, min_version?, notes?}`.
 * Unset means no platform has an update. A malformed value stops the API at start (ConfigError).
 */
export function readKioskManifest(raw: string | undefined): KioskUpdateManifest {
  if (!raw) return Object.create(null) as KioskUpdateManifest;
  const bad = (detail: string) => new ConfigError('KIOSK_UPDATE_MANIFEST', `is invalid (${detail})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw bad('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('not an object');
  // No prototype: a platform is looked up by what a kiosk sends, and `constructor` must not be found.
  const out: Record<string, ManifestEntry> = Object.create(null) as Record<string, ManifestEntry>;
  for (const [platform, v] of Object.entries(parsed as Record<string, unknown>)) {
    const e = v as Record<string, unknown>;
    if (!/^[a-z0-9_-]{1,32}$/.test(platform)) throw bad(`platform ${platform}`);
    if (typeof e !== 'object' || e === null || typeof e.version !== 'string' || !SEMVER.test(e.version)) throw bad(`${platform}.version`);
    if (typeof e.url !== 'string' || !/^https?:\/\//.test(e.url)) throw bad(`${platform}.url`);
    if (e.min_version !== undefined && e.min_version !== null && (typeof e.min_version !== 'string' || !SEMVER.test(e.min_version))) throw bad(`${platform}.min_version`);
    out[platform] = { version: e.version, url: e.url, min_version: (e.min_version as string | undefined) ?? null, notes: typeof e.notes === 'string' ? e.notes : null };
  }
  return out;
}

/** Numeric, part by part (`1.10.0` is newer than `1.9.3`); missing parts are 0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** `GET /kiosk/updates/check`: what the manifest says for the kiosk's platform and version. */
export function checkKioskUpdate(manifest: KioskUpdateManifest, platform: string, version: string) {
  const e = Object.hasOwn(manifest, platform) ? manifest[platform] : undefined;
  if (!e) return { platform, current_version: version, latest_version: null, update_available: false, mandatory: false, url: null, notes: null };
  return {
    platform,
    current_version: version,
    latest_version: e.version,
    update_available: compareVersions(version, e.version) < 0,
    mandatory: e.min_version !== null && compareVersions(version, e.min_version) < 0,
    url: compareVersions(version, e.version) < 0 ? e.url : null,
    notes: e.notes,
  };
}

/** `POST /kiosk/updates/push/register`: the kiosk's push token (one per device, replaced on each call). */
export async function registerKioskPushToken(tdb: TenantDb, deviceId: string, input: { token: string; platform: string; app_version?: string | null }, now: Date): Promise<void> {
  await tdb
    .insertInto('kiosk_push_tokens')
    .values({ device_id: deviceId, platform: input.platform, token: input.token, app_version: input.app_version ?? null, updated_at: now })
    .onConflict((oc) => oc.column('device_id').doUpdateSet({ platform: input.platform, token: input.token, app_version: input.app_version ?? null, updated_at: now }))
    .execute();
}

