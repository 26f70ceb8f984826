import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';
import type { FiscalEvent } from './events.ts';
import { eventLabelOf, eventOperationOf, isTicketEvent } from './signer.ts';
import type { EventLabel, EventOperation, FdmRef, FiscalSigner, SignResult } from './signer.ts';

/** The counters stamped on one event. */
export interface FdmCounters {
  readonly eventCounter: number;
  readonly totalCounter: number;
}

/**
 * Hands out the counters for the next event of a label: the total counter and that label's counter,
 * each incremented by one. A database implementation does the increment with
 * `UPDATE ... RETURNING` inside the state change's transaction, so a rollback gives the numbers back
 * and a committed event never leaves a gap.
 */
export interface CounterStore {
  next(label: EventLabel): Promise<FdmCounters> | FdmCounters;
}

/** Last counters per label and overall; what a CounterStore persists. */
export interface CounterState {
  readonly totalCounter: number;
  readonly eventCounters: Readonly<Partial<Record<EventLabel, number>>>;
}

/** In-memory CounterStore for tests, dev and the simulator. */
export class MemoryCounterStore implements CounterStore {
  private total: number;
  private readonly perLabel: Partial<Record<EventLabel, number>>;

  constructor(initial: CounterState = { totalCounter: 0, eventCounters: {} }) {
    this.total = initial.totalCounter;
    this.perLabel = { ...initial.eventCounters };
  }

  next(label: EventLabel): FdmCounters {
    const eventCounter = (this.perLabel[label] ?? 0) + 1;
    this.perLabel[label] = eventCounter;
    this.total += 1;
    return { eventCounter, totalCounter: this.total };
  }

  snapshot(): CounterState {
    return { totalCounter: this.total, eventCounters: { ...this.perLabel } };
  }
}

export interface SoftwareSignerConfig {
  readonly fdmId: string;
  /** PKCS#8 PEM of an Ed25519 key; or give `seedHex` (32 bytes). */
  readonly privateKeyPem?: string;
  readonly seedHex?: string;
  /** Base of the verification URL printed as a QR code. */
  readonly verificationBaseUrl: string;
  readonly clock?: () => Date;
  /** Defaults to a MemoryCounterStore starting at zero. */
  readonly counters?: CounterStore;
}

/** What the signature covers, besides the signed payload. */
export interface SignMeta {
  readonly label: EventLabel;
  readonly operation: EventOperation;
  /** Whether a short signature and verification URL are issued (sales and refunds). */
  readonly ticket: boolean;
}

const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function privateKeyOf(config: SoftwareSignerConfig): KeyObject {
  let key: KeyObject;
  if (config.privateKeyPem) {
    key = createPrivateKey(config.privateKeyPem);
  } else if (config.seedHex && /^[0-9a-fA-F]{64}$/.test(config.seedHex)) {
    const der = Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(config.seedHex, 'hex')]);
    key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } else {
    throw new TypeError('SoftwareSigner needs privateKeyPem or a 64-hex-digit seedHex');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('SoftwareSigner key must be Ed25519');
  return key;
}

/** A fresh random Ed25519 seed, hex (for provisioning a development signing module). */
export function generateSeedHex(): string {
  return randomBytes(32).toString('hex');
}

/** The bytes the digital signature covers. */
function signedBytes(payload: unknown, fdmRef: FdmRef, operation: EventOperation): Buffer {
  return Buffer.from(canonicalJson({ eventOperation: operation, fdmRef, payload }), 'utf8');
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** 8 base32 characters (40 bits) of SHA-256 over the signature: short enough to print, stable. */
export function shortSignatureOf(digitalSignature: string): string {
  const digest = createHash('sha256').update(Buffer.from(digitalSignature, 'base64')).digest();
  let bits = 0;
  let acc = 0;
  let out = '';
  for (const byte of digest) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < 8) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (out.length === 8) break;
  }
  return out;
}

/**
 * In-process signing module: one Ed25519 key per fiscal device. Counters come from a CounterStore
 * (`sign`) or are passed explicitly (`signWithCounters`), so the caller owns their persistence.
 */
export class SoftwareSigner implements FiscalSigner {
  readonly fdmId: string;
  readonly publicKeyPem: string;
  private readonly key: KeyObject;
  private readonly baseUrl: string;
  private readonly clock: () => Date;
  private readonly counters: CounterStore;

  constructor(config: SoftwareSignerConfig) {
    this.fdmId = config.fdmId;
    this.key = privateKeyOf(config);
    this.publicKeyPem = createPublicKey(this.key).export({ type: 'spki', format: 'pem' }).toString();
    this.baseUrl = config.verificationBaseUrl;
    this.clock = config.clock ?? (() => new Date());
    this.counters = config.counters ?? new MemoryCounterStore();
  }

  /** The same key and clock with another counter store (e.g. one bound to a transaction). */
  withCounters(counters: CounterStore): SoftwareSigner {
    const copy = Object.create(SoftwareSigner.prototype) as SoftwareSigner;
    Object.assign(copy, this, { counters });
    return copy;
  }

  async sign(event: FiscalEvent): Promise<SignResult> {
    const counters = await this.counters.next(eventLabelOf(event));
    return this.signWithCounters(event, counters);
  }

  /** Signs with counters the caller already reserved (the new values, not the last ones). */
  signWithCounters(event: FiscalEvent, counters: FdmCounters): SignResult {
    return this.signPayload(event, { label: eventLabelOf(event), operation: eventOperationOf(event), ticket: isTicketEvent(event) }, counters);
  }

  /** Signs any JSON payload (the simulator signs the wire input it received). */
  signPayload(payload: unknown, meta: SignMeta, counters: FdmCounters): SignResult {
    if (!Number.isSafeInteger(counters.eventCounter) || counters.eventCounter < 1 || !Number.isSafeInteger(counters.totalCounter) || counters.totalCounter < counters.eventCounter) {
      throw new RangeError(`Invalid counters ${JSON.stringify(counters)}`);
    }
    const fdmRef: FdmRef = {
      fdmId: this.fdmId,
      fdmDateTime: this.clock().toISOString(),
      eventLabel: meta.label,
      eventCounter: counters.eventCounter,
      totalCounter: counters.totalCounter,
    };
    const digitalSignature = sign(null, signedBytes(payload, fdmRef, meta.operation), this.key).toString('base64');
    if (!meta.ticket) return { fdmRef, digitalSignature, eventOperation: meta.operation };
    const shortSignature = shortSignatureOf(digitalSignature);
    const url = new URL(this.baseUrl);
    url.searchParams.set('fdmId', fdmRef.fdmId);
    url.searchParams.set('eventLabel', fdmRef.eventLabel);
    url.searchParams.set('eventCounter', String(fdmRef.eventCounter));
    url.searchParams.set('totalCounter', String(fdmRef.totalCounter));
    url.searchParams.set('shortSignature', shortSignature);
    return { fdmRef, digitalSignature, shortSignature, verificationUrl: url.toString(), eventOperation: meta.operation };
  }
}

/** Verifies a SignResult over any payload signed with `signPayload`. */
export function verifyPayloadSignature(publicKey: KeyObject | string, payload: unknown, result: SignResult): boolean {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const ok = verify(null, signedBytes(payload, result.fdmRef, result.eventOperation), key, Buffer.from(result.digitalSignature, 'base64'));
  if (!ok) return false;
  return result.shortSignature === undefined || result.shortSignature === shortSignatureOf(result.digitalSignature);
}

/**
 * True when `result` is a SoftwareSigner signature of exactly this event under the label and
 * operation the event implies. (A remote module's signatures are checked by the authority, not here.)
 */
export function verifySignature(publicKey: KeyObject | string, event: FiscalEvent, result: SignResult): boolean {
  if (result.fdmRef.eventLabel !== eventLabelOf(event) || result.eventOperation !== eventOperationOf(event)) return false;
  return verifyPayloadSignature(publicKey, event, result);
}
