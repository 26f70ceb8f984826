import { timingSafeEqual } from 'node:crypto';
import { AppError } from '@pos/kernel';

/** `device-key`: the `X-Client-API-Key` header must equal the configured key (constant-time compare). */
export function checkDeviceKey(given: string | undefined | null, expected: string): void {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new AppError('unauthenticated', 'Invalid API key');
}
