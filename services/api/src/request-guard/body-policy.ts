/**
 * Body limits per route family (issue 8): the largest body a family accepts and the media types it
 * reads. The first matching prefix wins; families that upload files or take raw provider payloads
 * add their row here.
 */
export interface BodyPolicy {
  readonly prefix: string;
  readonly maxBytes: number;
  /** Media types read by the JSON guard; `multipart/form-data` is left to the framework's parser. */
  readonly mediaTypes: readonly string[];
}

const KIB = 1024;
const JSON_ONLY = ['application/json'] as const;

export const BODY_POLICIES: readonly BodyPolicy[] = [
  // Unauthenticated credential routes: small bodies only.
  { prefix: '/api/login', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
  { prefix: '/api/device-auth/', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
  { prefix: '/api/pos/staff/', maxBytes: 16 * KIB, mediaTypes: JSON_ONLY },
  // Register orders carry up to 500 lines with modifiers.
  { prefix: '/api/pos/', maxBytes: 512 * KIB, mediaTypes: JSON_ONLY },
  { prefix: '/api/', maxBytes: 256 * KIB, mediaTypes: JSON_ONLY },
];

/** The largest body any family accepts: the server refuses anything larger before routing. */
export const MAX_BODY_BYTES = Math.max(...BODY_POLICIES.map((p) => p.maxBytes));

export function bodyPolicyFor(pathname: string): BodyPolicy {
  return BODY_POLICIES.find((p) => pathname.startsWith(p.prefix)) ?? BODY_POLICIES[BODY_POLICIES.length - 1]!;
}

/** `application/json; charset=utf-8` -> `application/json`; `application/merge+json` counts as JSON. */
export function mediaTypeOf(contentType: string | null): string {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return /^application\/[\w.+-]+\+json$/.test(t) ? 'application/json' : t;
}
