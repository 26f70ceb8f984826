import { createHmac } from 'node:crypto';
import { Semaphore } from '../concurrency/semaphore.ts';

/**
 * argon2id hashes and verifications running at once in this process: each holds 19 MiB for its
 * duration, so a flood of sign-ins, PIN logins or codes queues here (one per core, at least two)
 * instead of taking the process's memory with it.
 */
export const argon2Slots = new Semaphore(Math.max(2, navigator.hardwareConcurrency));

/** argon2id through Bun's native implementation (no extra dependency). */
export function hashSecret(plain: string): Promise<string> {
  return argon2Slots.run(() => Bun.password.hash(plain, { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 }));
}

export function verifySecret(plain: string, hash: string): Promise<boolean> {
  return argon2Slots.run(() => Bun.password.verify(plain, hash)).catch(() => false);
}

/**
 * PINs are short, so a slow hash alone cannot be looked up at login: a keyed HMAC (pepper from the
 * environment, tenant in the message) finds the credential and enforces uniqueness within a merchant;
 * the argon2id hash is still verified.
 */
export function pinFingerprint(pepper: string, tenantDatabase: string, pin: string): string {
  return createHmac('sha256', pepper).update(`${tenantDatabase}:${pin}`).digest('hex');
}

/** Random numeric code of `digits` digits from a CSPRNG. */
export function randomDigits(digits: number): string {
  const bytes = crypto.getRandomValues(new Uint32Array(digits));
  return Array.from(bytes, (b) => String(b % 10)).join('');
}

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'; // no 0/O/1/I: read aloud and typed on tablets
/** Random activation code. */
export function randomCode(length = 8): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join('');
}

/** URL-safe random secret. */
export function randomSecret(bytes = 18): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
}
