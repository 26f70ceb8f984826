/**
 * Body limits per route family (issue 8): the largest body a family accepts and the media types it
 * reads. The first matching prefix wins; families that upload files or take raw provider payloads
 * add their row here.
 */
export interface BodyPolicy {
  readonly prefix: string;
  readonly maxBytes: number;
  /** Media types accepted; JSON is checked by the guard, `multipart/form-data` only counted. */
  readonly mediaTypes: readonly string[];
  /**
   * Raw provider payloads (webhooks, issue 13): only the size limit applies here; the bytes reach the
   * route unparsed, whatever their media type, because signatures are computed over the raw bytes
   * received. The route verifies first and parses after.
   */
  readonly raw?: boolean;
}

const KIB = 1024;
const JSON_ONLY = ['application/json'] as const;
/** Room for a multipart envelope and the text fields beside the file. */
const MULTIPART_OVERHEAD = 64 * KIB;

/** Inbound provider webhooks (spec 3 section 4): signed over their raw bytes. */
export const WEBHOOK_PREFIXES = ['/api/card-a-webhook/', '/api/card-b-webhook/', '/api/shop-a-webhook', '/api/webhook/', '/api/crm/intake'] as const;
const WEBHOOK_MAX_BYTES = 256 * KIB;

/** The families and their limits; `contentMaxBytes` is the largest upload (CONTENT_MAX_BYTES). */
export function bodyPolicies(contentMaxBytes: number): readonly BodyPolicy[] {
  return [
    // Provider webhooks: raw bytes, size limit only (checked before the JSON families below).
    ...WEBHOOK_PREFIXES.map((prefix) => ({ prefix, maxBytes: WEBHOOK_MAX_BYTES, mediaTypes: ['*/*'], raw: true })),
    // Unauthenticated credential routes: small bodies only.
    { prefix: '/api/login', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
    { prefix: '/api/device-auth/', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
    { prefix: '/api/pos/staff/', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
    // Register orders carry up to 500 lines with modifiers.
    { prefix: '/api/pos/', maxBytes: 512 * KIB, mediaTypes: JSON_ONLY },
    // Catalog content uploads (an image and its name).
    { prefix: '/api/back-office/contents', maxBytes: contentMaxBytes + MULTIPART_OVERHEAD, mediaTypes: ['multipart/form-data', 'application/json'] },
    { prefix: '/api/', maxBytes: 256 * KIB, mediaTypes: JSON_ONLY },
  ];
}

/** The largest body any family accepts: the server refuses anything larger before routing. */
export const maxBodyBytes = (policies: readonly BodyPolicy[]) => Math.max(...policies.map((p) => p.maxBytes));

export function bodyPolicyFor(policies: readonly BodyPolicy[], pathname: string): BodyPolicy {
  return policies.find((p) => pathname.startsWith(p.prefix)) ?? policies[policies.length - 1]!;
}

/** `application/json; charset=utf-8` -> `application/json`; `application/merge+json` counts as JSON. */
export function mediaTypeOf(contentType: string | null): string {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return /^application\/[\w.+-]+\+json$/.test(t) ? 'application/json' : t;
}
