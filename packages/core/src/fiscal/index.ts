/** Fiscal signing of register events: configuration, signers, the journal, recovery and export. */
export { DEFAULT_VERIFICATION_URL, fiscalConfigFromEnv, type FiscalConfig, type FiscalEnv } from './fiscal-config.ts';
export { createSignerRegistry, deriveSeedHex, type SignerRegistry, type SignerRegistryOptions } from './signer-registry.ts';
export { activeFdmFor, activeFdmsFor, GKS_REGIME, isSigning, type FdmEnrolment } from './active-fdm.ts';
export { counterValue, DbCounterStore, reserveCounter, reserveCounters, SEQ_LABEL, ticketLabel, TOTAL_LABEL } from './counter-store.ts';
export type { FiscalSignError, FiscalSubject, SignedFiscalEvent } from './journal-rows.ts';
export {
  businessDateIn,
  derivedBookingPeriodId,
  notEnrolledError,
  refusedError,
  requireVatLabels,
  unreachableError,
  type PendingOutcome,
  type ReservedEntry,
  type SignEventInput,
} from './sign-event.ts';
export { createFiscalService, type FiscalService, type FiscalServiceOptions } from './fiscal-service.ts';
export { findJournalEntry, type JournalEntryState } from './find-journal-entry.ts';
export { recoverPendingEntries, type RecoverOptions, type RecoveryHooks, type RecoverySummary } from './recover-pending.ts';
export {
  exportJournal,
  hasFiscalHistory,
  locationsWithFiscalHistory,
  verifyDeviceRows,
  type DeviceJournal,
  type DeviceVerification,
  type ExportedEntry,
  type ExportJournalInput,
  type JournalKeys,
  type VerifyDeviceOptions,
} from './export-journal.ts';
export { storedSignature, type StoredSignature } from './stored-signature.ts';
