import type { FetchLike } from '@pos/providers/fdm/fdm-client';
import type { TenantDb, TenantTx } from '@pos/db';
import { systemClock, type Clock, type Logger } from '@pos/kernel';
import corePackage from '../../package.json' with { type: 'json' };
import type { FiscalConfig } from './fiscal-config.ts';
import type { SignedFiscalEvent } from './journal-rows.ts';
import { completePendingEntry, reserveRemote, sendReserved, signEvent, signInTransaction, signRemote, type FiscalSignDeps, type PendingOutcome, type ReservedEntry, type SignEventInput } from './sign-event.ts';
import { createSignerRegistry, type SignerRegistry } from './signer-registry.ts';
import type { RecoveryHooks } from './recover-pending.ts';
import { signOverHead, type HeadSnapshot, type SignedOverHead } from './sign-over-head.ts';

/**
 * Fiscal signing for the register, built once from configuration (`createFiscalService`) and passed
 * to use cases. See sign-event.ts for the software and remote flows and the caller contract.
 */
export interface FiscalService {
  readonly signers: SignerRegistry;
  /** Software mode, inside the caller's transaction (its state change commits with the signed entry). */
  signInTransaction(tx: TenantTx, input: SignEventInput): Promise<SignedFiscalEvent>;
  /** Remote mode: pending entry committed, module called outside any transaction, entry completed. */
  signRemote(tdb: TenantDb, input: SignEventInput): Promise<SignedFiscalEvent>;
  /** Remote mode, in the caller's transaction: the pending entry, committed with the caller's reservation. */
  reserveRemote(tx: TenantTx, input: SignEventInput): Promise<ReservedEntry>;
  /** Remote mode, after that commit: the module called outside any transaction, the entry completed. */
  sendReserved(tdb: TenantDb, reserved: ReservedEntry): Promise<SignedFiscalEvent>;
  /** By enrolment mode; software runs in `opts.tx` or its own transaction; remote refuses `opts.tx`. */
  signEvent(tdb: TenantDb, input: SignEventInput, opts?: { tx?: TenantTx }): Promise<SignedFiscalEvent>;
  /**
   * Software mode, no I/O: signs the next entry over a head the caller read; the caller writes it in
   * one statement conditional on that head (see sign-over-head.ts).
   */
  signOverHead(snapshot: HeadSnapshot, input: SignEventInput): SignedOverHead;
  /** Re-sends one pending remote entry and records the answer; completed entries are returned as they are. */
  completePending(tdb: TenantDb, journalId: string): Promise<PendingOutcome>;
  /** Public key (SPKI PEM) of a software-mode device, for journal verification. */
  publicKeyFor(fdmId: string): string;
  /** The journal seal key, for journal verification. */
  readonly sealKey: Buffer;
}

export interface FiscalServiceOptions {
  readonly clock?: Clock;
  /** Transport of remote modules (default global fetch). */
  readonly fetch?: FetchLike;
  /**
   * Finish the records of earlier entries a send completes on its way (sends go in journal order;
   * the register passes `registerRecoveryHooks`).
   */
  readonly hooks?: RecoveryHooks;
}

/** Builds the fiscal service. Reads no environment: parse it with `fiscalConfigFromEnv`. */
export function createFiscalService(config: FiscalConfig, log: Logger, opts: FiscalServiceOptions = {}): FiscalService {
  const clock = opts.clock ?? systemClock;
  const signers = createSignerRegistry(config, { clock, ...(opts.fetch ? { fetch: opts.fetch } : {}) });
  const deps: FiscalSignDeps = { signers, clock, log: log.child({ component: 'fiscal' }), posSwVersion: config.posSwVersion ?? corePackage.version, ...(opts.hooks ? { hooks: opts.hooks } : {}) };
  return {
    signers,
    signInTransaction: (tx, input) => signInTransaction(deps, tx, input),
    signRemote: (tdb, input) => signRemote(deps, tdb, input),
    reserveRemote: (tx, input) => reserveRemote(deps, tx, input),
    sendReserved: (tdb, reserved) => sendReserved(deps, tdb, reserved),
    signEvent: (tdb, input, o) => signEvent(deps, tdb, input, o),
    signOverHead: (snapshot, input) => signOverHead(deps, snapshot, input),
    completePending: (tdb, journalId) => completePendingEntry(deps, tdb, journalId),
    publicKeyFor: (fdmId) => signers.publicKeyFor(fdmId),
    sealKey: signers.sealKey,
  };
}
