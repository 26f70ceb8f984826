import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The register-a token (spec 3 section 5): a JWT whose payload wraps the claims in `data`.
 * The simulator signs HS256 with one key per `namespace` (prod and staging use different keys);
 * the client only decodes (it never holds the provider's key) and checks the claims before a call.
 */
export type RegisterANamespace = 'prod' | 'staging';

export interface RegisterAClaims {
  readonly id: string;
  readonly applicationId: string;
  readonly namespace: RegisterANamespace;
  readonly userId: string;
  readonly isSubToken: boolean;
  /** `company.<uuid>` and `store.<uuid>`: what the token may write or delete. */
  readonly resources: readonly string[];
  readonly permissions: Readonly<Record<string, boolean>>;
  readonly hasSubscription: boolean;
  readonly iat: number;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

export function signRegisterAToken(claims: RegisterAClaims, key: string): string {
  const { iat, ...data } = claims;
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify({ data, iat }));
  const sig = createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** Decodes the payload and checks the claim shape; null when the token is not a register-a token. */
export function decodeRegisterAToken(token: string): RegisterAClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || token.length > 8192) return null;
  let payload: any;
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const d = payload?.data;
  if (!d || typeof d !== 'object') return null;
  if (typeof d.id !== 'string' || typeof d.applicationId !== 'string' || !d.applicationId) return null;
  if (d.namespace !== 'prod' && d.namespace !== 'staging') return null;
  if (!Array.isArray(d.resources) || !d.resources.every((r: unknown) => typeof r === 'string' && /^(company|store)\.[^.]+$/.test(r))) return null;
  if (!d.permissions || typeof d.permissions !== 'object' || Array.isArray(d.permissions)) return null;
  if (typeof payload.iat !== 'number' || !Number.isInteger(payload.iat)) return null;
  return {
    id: d.id,
    applicationId: d.applicationId,
    namespace: d.namespace,
    userId: typeof d.userId === 'string' ? d.userId : '',
    isSubToken: d.isSubToken === true,
    resources: d.resources,
    permissions: Object.fromEntries(Object.entries(d.permissions).filter(([, v]) => v === true).map(([k]) => [k, true])),
    hasSubscription: d.hasSubscription === true,
    iat: payload.iat,
  };
}

/** Signature check (simulator side): the claims when `token` is signed with `key`, else null. */
export function verifyRegisterAToken(token: string, key: string): RegisterAClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const expected = Buffer.from(createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest('base64url'));
  const given = Buffer.from(parts[2]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return decodeRegisterAToken(token);
}

/**
 * Whether `claims` allow `permission` on the resource (`store.<s>` or `company.<c>`): the permission is
 * granted (exactly or through its `*` form) and the resource, or the company owning the store, is listed.
 */
export function claimsAllow(claims: RegisterAClaims, permission: string, resource?: { store?: string; company?: string }): boolean {
  if (claims.permissions[permission] !== true) return false;
  if (!resource) return true;
  if (resource.company && claims.resources.includes(`company.${resource.company}`)) return true;
  if (resource.store && claims.resources.includes(`store.${resource.store}`)) return true;
  return false;
}
