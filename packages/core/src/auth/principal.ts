/** Token audiences (spec 1 section 5, claim `type`). */
export type TokenType = 'backoffice' | 'customer' | 'kiosk' | 'kds' | 'pos';
export const DEVICE_TOKEN_TYPES = ['kiosk', 'kds', 'pos'] as const;
export type DeviceTokenType = (typeof DEVICE_TOKEN_TYPES)[number];

/**
 * Token lifetimes (spec 1 leaves them open). Back-office sessions last a working day plus margin;
 * device tokens are long-lived (revoked by device logout or deletion through `token_version`);
 * customer sessions a month.
 */
export const TOKEN_LIFETIME_SECONDS: Readonly<Record<TokenType, number>> = {
  backoffice: 12 * 3600,
  customer: 30 * 24 * 3600,
  kiosk: 365 * 24 * 3600,
  kds: 365 * 24 * 3600,
  pos: 365 * 24 * 3600,
};

/** Claims we sign. `sub` is the user id (backoffice, customer) or the device id. */
export interface TokenClaims {
  type: TokenType;
  sub: string;
  tenant_database: string;
  merchant_id: string;
  jti: string;
  /** Device tokens: must equal the registry's token_version, which logout bumps. */
  ver?: number;
}

/** Claims of a token whose signature, algorithm, type and expiry were verified. */
export interface VerifiedClaims extends TokenClaims {
  exp: number;
  iat: number;
}

/** Issues and verifies signed tokens (the API implements it with JWTs; the secret comes from configuration). */
export interface TokenService {
  sign(claims: Omit<TokenClaims, 'jti'> & { jti?: string }, lifetimeSeconds?: number): Promise<string>;
  /** The claims of a well-formed, correctly signed, unexpired token of a known type, else null. */
  verify(token: string): Promise<VerifiedClaims | null>;
}

export interface BackofficePrincipal {
  readonly type: 'backoffice';
  readonly userId: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly jti: string;
  readonly exp: number;
}

export interface DevicePrincipal {
  readonly type: DeviceTokenType;
  readonly deviceId: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly jti: string;
  readonly exp: number;
}

export interface CustomerPrincipal {
  readonly type: 'customer';
  readonly customerId: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly jti: string;
  readonly exp: number;
}

export type Principal = BackofficePrincipal | DevicePrincipal | CustomerPrincipal;

export function isDeviceType(t: string): t is DeviceTokenType {
  return (DEVICE_TOKEN_TYPES as readonly string[]).includes(t);
}
