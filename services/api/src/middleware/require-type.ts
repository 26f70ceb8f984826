import { errors } from '@pos/kernel';
import type { Principal, TokenType } from '@pos/core/auth/principal';

/** `type:<t>`: 403 `Unauthorized: Invalid user type` when the token's type is not one of `types`. */
export function requireType<T extends TokenType>(p: Principal, types: readonly T[]): asserts p is Extract<Principal, { type: T }> {
  if (!(types as readonly string[]).includes(p.type)) throw errors.invalidUserType();
}
