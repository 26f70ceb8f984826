import { hkdfSync } from 'node:crypto';
import { SoftwareSigner } from '@pos/fiscal';
import { RemoteFdmSigner, type FetchLike } from '@pos/providers/fdm/fdm-client';
import { errors, systemClock, type Clock } from '@pos/kernel';
import type { FiscalConfig } from './fiscal-config.ts';

/** The signers of fiscal devices, built from configuration and cached per fdm id. */
export interface SignerRegistry {
  /** The in-process signer of a software-mode device (its counters are supplied per transaction). */
  software(fdmId: string): SoftwareSigner;
  /**
   * The client of a remote-mode device's module. Throws a 503 AppError (reason
   * `fiscal_not_configured`, the missing setting in `cause`) when the remote URL or the device's
   * shared secret is not configured.
   */
  remote(fdmId: string): RemoteFdmSigner;
  /** SPKI PEM of a software-mode device's key, to verify its journal's signatures. */
  publicKeyFor(fdmId: string): string;
  /** The journal seal key (from FISCAL_SEAL_KEY, else FISCAL_MASTER_KEY): never stored in the database. */
  readonly sealKey: Buffer;
}

export interface SignerRegistryOptions {
  readonly clock?: Clock;
  /** Transport of the remote client (default global fetch). */
  readonly fetch?: FetchLike;
}

/** HKDF-SHA256(masterKey, salt = empty, info = fdmId), 32 bytes, as hex: a software device's Ed25519 seed. */
export function deriveSeedHex(masterKey: string, fdmId: string): string {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), fdmId, 32)).toString('hex');
}

/** HKDF-SHA256(material, salt = empty, info = 'journal-seal'), 32 bytes: the HMAC key of the journal seals. */
export function deriveSealKey(material: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), 'journal-seal', 32));
}

/** Builds the signer registry. Software keys: `signingKeys[fdmId]`, else derived from `masterKey`. */
export function createSignerRegistry(config: FiscalConfig, opts: SignerRegistryOptions = {}): SignerRegistry {
  const clock = opts.clock ?? systemClock;
  const software = new Map<string, SoftwareSigner>();
  const remote = new Map<string, RemoteFdmSigner>();

  const notConfigured = (detail: string) =>
    errors.unavailable('The fiscal data module of this location is not configured.', { reason: 'fiscal_not_configured', cause: new Error(detail) });

  const softwareSigner = (fdmId: string): SoftwareSigner => {
    let signer = software.get(fdmId);
    if (!signer) {
      signer = new SoftwareSigner({
        fdmId,
        // Own keys only: a module id is chosen in the back office, and `toString` must not find Object.prototype's.
        seedHex: (config.signingKeys && Object.hasOwn(config.signingKeys, fdmId) ? config.signingKeys[fdmId] : undefined) ?? deriveSeedHex(config.masterKey, fdmId),
        verificationBaseUrl: config.verificationBaseUrl,
        clock: () => clock.now(),
      });
      software.set(fdmId, signer);
    }
    return signer;
  };

  return {
    software: softwareSigner,
    remote(fdmId) {
      let signer = remote.get(fdmId);
      if (!signer) {
        if (!config.remote) throw notConfigured(`FDM_REMOTE_URL is not set; fiscal device ${fdmId} is in remote mode`);
        const sharedSecret = Object.hasOwn(config.remote.secrets, fdmId) ? config.remote.secrets[fdmId] : undefined;
        if (!sharedSecret) throw notConfigured(`FDM_REMOTE_SECRETS has no shared secret for fiscal device ${fdmId}`);
        signer = new RemoteFdmSigner({
          baseUrl: config.remote.baseUrl,
          deviceId: fdmId,
          sharedSecret,
          clock: () => clock.now(),
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
          ...(config.remote.timeoutMs !== undefined ? { timeoutMs: config.remote.timeoutMs } : {}),
        });
        remote.set(fdmId, signer);
      }
      return signer;
    },
    publicKeyFor: (fdmId) => softwareSigner(fdmId).publicKeyPem,
    sealKey: deriveSealKey(config.sealKey ?? config.masterKey),
  };
}
