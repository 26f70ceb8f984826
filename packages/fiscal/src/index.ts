/**
 * @pos/fiscal: Belgian fiscal data module (GKS 2.0) signing for the register.
 *
 * - `events`: canonical fiscal events (amounts in cents) and their builders; sale payment lines
 *   come only from the frozen tender.
 * - `signer`: the `FiscalSigner` interface, event labels and operations.
 * - `software-signer`: in-process Ed25519 signing module (dev, tests, simulator) and verification.
 * - `journal`: the per-device hash-chained journal and its end-to-end verification.
 * - `fdm-wire`: the GraphQL wire mapping (the only place cents become major units).
 *
 * The client of a remote module over GraphQL is a provider client: `@pos/providers/fdm/fdm-client`.
 */
export { canonicalJson } from './canonical-json.ts';
export { unlabelledVatRates, vatLabel, VAT_RATES, type VatLabel } from './vat.ts';
export {
  financialsFromTender,
  moneyInOutEvent,
  orderEvent,
  refundEvent,
  saleEvent,
  signedMovementAmount,
  toFinancials,
  type DrawerOpenEvent,
  type FinancialLine,
  type FiscalCommon,
  type FiscalDrawer,
  type FiscalEvent,
  type FiscalEventKind,
  type FiscalLanguage,
  type FiscalLine,
  type FiscalTransaction,
  type FiscalVat,
  type LineInput,
  type MoneyInOutEvent,
  type MoneyMovement,
  type OrderEvent,
  type OrderLineInput,
  type PaymentTotal,
  type RefundEvent,
  type ReportTurnover,
  type ReportXTurnoverEvent,
  type ReportXUserEvent,
  type ReportZEvent,
  type SaleEvent,
  type TicketMedium,
  type VatTotal,
  type WorkInEvent,
  type WorkOutEvent,
} from './events.ts';
export { eventLabelOf, eventOperationOf, isTicketEvent, type EventLabel, type EventOperation, type FdmRef, type FiscalSigner, type SignResult } from './signer.ts';
export {
  generateSeedHex,
  MemoryCounterStore,
  shortSignatureOf,
  SoftwareSigner,
  verifyPayloadSignature,
  verifySignature,
  type CounterState,
  type CounterStore,
  type FdmCounters,
  type SignMeta,
  type SoftwareSignerConfig,
} from './software-signer.ts';
export {
  appendEntry,
  appendSigned,
  chainHash,
  completeEntry,
  entrySeal,
  GENESIS_HASH,
  journalContent,
  resultHash,
  resultSeal,
  sealMatches,
  verifyJournal,
  JournalVerifier,
  type SealKey,
  type JournalContent,
  type JournalEntry,
  type JournalHead,
  type JournalProblem,
  type JournalVerification,
  type VerifyOptions,
} from './journal.ts';
export { FDM_INPUT_TYPES, fdmOperationOf, fdmQuery, fdmRequest, toFdmData, type FdmOperation, type FdmSignResponse } from './fdm-wire.ts';
