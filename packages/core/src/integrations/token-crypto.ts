import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Integration secrets at rest (OAuth tokens, register-a's applicationId): AES-256-GCM with the key of
 * `INTEGRATION_TOKEN_KEY` (32 bytes as 64 hex digits or base64). Stored as `v1.<iv>.<tag>.<ciphertext>`
 * (base64url), a fresh 12-byte IV per value; a changed byte or another key fails authentication.
 */
export type TokenKey = Buffer & { readonly __tokenKey: true };

export function parseTokenKey(value: string | undefined): TokenKey | null {
  if (!value) return null;
  const bytes = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (bytes.length !== 32) throw new Error('INTEGRATION_TOKEN_KEY must be 32 bytes: 64 hex digits or base64');
  return bytes as TokenKey;
}

export function encryptSecret(key: TokenKey, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

/** The plaintext, or null when the value is not ours (another key, tampered, malformed). */
export function decryptSecret(key: TokenKey, stored: string): string | null {
  const parts = stored.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(parts[1]!, 'base64url'));
    decipher.setAuthTag(Buffer.from(parts[2]!, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(parts[3]!, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
