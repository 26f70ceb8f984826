import { createHash, createSign, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

/** A tiny CBOR encoder: what WebAuthn attestation needs (maps, byte/text strings, integers). */
export function cbor(v: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof v === 'number') return v >= 0 ? head(0, v) : head(1, -1 - v);
  if (typeof v === 'string') {
    const s = Buffer.from(v, 'utf8');
    return Buffer.concat([head(3, s.length), s]);
  }
  if (v instanceof Uint8Array) return Buffer.concat([head(2, v.length), Buffer.from(v)]);
  if (v instanceof Map) return Buffer.concat([head(5, v.size), ...[...v].flatMap(([k, x]) => [cbor(k), cbor(x)])]);
  if (v && typeof v === 'object') return cbor(new Map(Object.entries(v)));
  throw new Error(`cbor: unsupported ${typeof v}`);
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/**
 * A software WebAuthn authenticator for tests: an ES256 key made with node:crypto, real
 * attestation objects (`none` or `packed` self-attestation) and real assertions signed over
 * authenticatorData || SHA-256(clientDataJSON), as a browser and a platform authenticator produce.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  readonly #privateKey: KeyObject;
  readonly #publicJwk: { x: string; y: string };
  signCount = 0;

  constructor(readonly origin: string, readonly rpId: string) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.#publicJwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  #sign(data: Buffer): Buffer {
    return createSign('sha256').update(data).sign(this.#privateKey); // DER, as WebAuthn wants for ES256
  }

  #authData(flags: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.signCount);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  /** `navigator.credentials.create()` answered, as RegistrationResponseJSON. */
  register(options: { challenge: string }, fmt: 'none' | 'packed' = 'none', overrides: { origin?: string; userVerified?: boolean } = {}) {
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }));
    const coseKey = cbor(new Map<number, unknown>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(this.#publicJwk.x, 'base64url')], [-3, Buffer.from(this.#publicJwk.y, 'base64url')]]));
    const idLen = Buffer.alloc(2);
    idLen.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLen, this.credentialId, coseKey]);
    // Flags: user present, user verified (PIN or biometrics; `userVerified: false` leaves it out), attested data.
    const authData = this.#authData(0x01 | (overrides.userVerified === false ? 0 : 0x04) | 0x40, attested);
    const attStmt = fmt === 'packed' ? { alg: -7, sig: this.#sign(Buffer.concat([authData, sha256(clientDataJSON)])) } : {};
    const attestationObject = cbor(new Map<string, unknown>([['fmt', fmt], ['attStmt', attStmt], ['authData', authData]]));
    return {
      id: b64u(this.credentialId),
      rawId: b64u(this.credentialId),
      type: 'public-key' as const,
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }

  /** `navigator.credentials.get()` answered, as AuthenticationResponseJSON (the counter grows each time). */
  assert(options: { challenge: string }, overrides: { origin?: string; signCount?: number; userVerified?: boolean } = {}) {
    this.signCount = overrides.signCount ?? this.signCount + 1;
    const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }));
    const authData = this.#authData(0x01 | (overrides.userVerified === false ? 0 : 0x04));
    const signature = this.#sign(Buffer.concat([authData, sha256(clientDataJSON)]));
    return {
      id: b64u(this.credentialId),
      rawId: b64u(this.credentialId),
      type: 'public-key' as const,
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature) },
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
    };
  }
}
