import type { Cents } from '@pos/domain/money';
import type { FrozenTender, PaymentLine, SignedPaymentType } from '@pos/tenders/types';
import { paymentLines } from '@pos/tenders/payment-lines';
import { vatLabel, type VatLabel } from './vat.ts';

// Every amount in an event is integer cents, report turnovers included; the FDM wire mapping
// (fdm-wire.ts) is the one place that converts to decimal major units.

export type FiscalLanguage = 'NL' | 'FR' | 'DE' | 'EN';
export type TicketMedium = 'PAPER' | 'ELECTRONIC' | 'NONE';

/** Fields every fiscal event carries (PROTOCOLS, common input) plus the training flag. */
export interface FiscalCommon {
  readonly vatNo: string;
  readonly estNo: string;
  readonly posId: string;
  readonly posFiscalTicketNo: number;
  /** ISO 8601 instant. */
  readonly posDateTime: string;
  readonly posSwVersion: string;
  readonly terminalId: string;
  readonly deviceId: string;
  /** UUID of the fiscal business day. */
  readonly bookingPeriodId: string;
  /** YYYY-MM-DD, the business day's date in the location's zone. */
  readonly bookingDate: string;
  readonly ticketMedium: TicketMedium;
  readonly employeeId: string;
  readonly language: FiscalLanguage;
  readonly isTraining: boolean;
}

/** The till drawer's frozen fiscal identity. */
export interface FiscalDrawer {
  readonly drawerId: string;
  readonly drawerName: string;
}

export interface FiscalVat {
  readonly label: VatLabel;
  /** VAT-inclusive share of the line under this label. */
  readonly price: Cents;
}

/** A signed transaction line (single product). Refund lines have negative quantity and totals. */
export interface FiscalLine {
  readonly productId: string;
  readonly productName: string;
  readonly departmentId: string;
  readonly departmentName: string;
  readonly quantity: number;
  /** REFUND on a refund; CORRECTION on an order event's line the kitchen no longer makes. */
  readonly negQuantityReason?: 'REFUND' | 'CORRECTION';
  readonly unitPrice: Cents;
  readonly vats: readonly FiscalVat[];
  readonly lineTotal: Cents;
}

/** A `financials[]` entry: a payment line plus the id/name the module wants and the cash drawer. */
export interface FinancialLine extends PaymentLine {
  readonly id: string;
  readonly name: string;
  readonly drawer?: FiscalDrawer;
}

export interface FiscalTransaction {
  readonly lines: readonly FiscalLine[];
  readonly total: Cents;
}

export type MoneyMovement = 'paid_in' | 'paid_out' | 'float_issue' | 'float_return';

export interface VatTotal {
  readonly label: VatLabel;
  readonly taxableAmount: Cents;
  readonly vatAmount: Cents;
  readonly totalAmount: Cents;
}

export interface PaymentTotal {
  readonly type: SignedPaymentType;
  readonly amountType: 'PAYMENT' | 'ROUNDING';
  readonly amount: Cents;
}

/** Turnover of an X or Z report, in cents (refunds negative, total = sales + refunds). */
export interface ReportTurnover {
  readonly saleCount: number;
  readonly refundCount: number;
  readonly sales: Cents;
  readonly refunds: Cents;
  readonly total: Cents;
  readonly vats: readonly VatTotal[];
  readonly payments: readonly PaymentTotal[];
}

export interface SaleEvent extends FiscalCommon {
  readonly kind: 'sale';
  readonly transaction: FiscalTransaction;
  readonly financials: readonly FinancialLine[];
}
export interface RefundEvent extends FiscalCommon {
  readonly kind: 'refund';
  readonly transaction: FiscalTransaction;
  readonly financials: readonly FinancialLine[];
}
/**
 * An order sent to the kitchen (a register fire, or the VOID lines of a fired order's void): the
 * fire's delta as the kitchen gets it, nothing paid (no `financials`).
 */
export interface OrderEvent extends FiscalCommon {
  readonly kind: 'order';
  readonly transaction: FiscalTransaction;
}
export interface WorkInEvent extends FiscalCommon {
  readonly kind: 'work_in';
}
export interface WorkOutEvent extends FiscalCommon {
  readonly kind: 'work_out';
}
export interface MoneyInOutEvent extends FiscalCommon {
  readonly kind: 'money_in_out';
  readonly movement: MoneyMovement;
  /** Signed by direction: positive into the drawer (paid_in, float_issue), negative out. */
  readonly amount: Cents;
  readonly drawer?: FiscalDrawer;
}
export interface DrawerOpenEvent extends FiscalCommon {
  readonly kind: 'drawer_open';
  readonly drawer?: FiscalDrawer;
}
export interface ReportXTurnoverEvent extends FiscalCommon {
  readonly kind: 'report_x_turnover';
  readonly turnover: ReportTurnover;
}
export interface ReportXUserEvent extends FiscalCommon {
  readonly kind: 'report_x_user';
  readonly users: readonly { readonly employeeId: string; readonly turnover: ReportTurnover }[];
}
export interface ReportZEvent extends FiscalCommon {
  readonly kind: 'report_z';
  readonly reportNo: number;
  /** YYYY-MM-DD of the business day being closed. */
  readonly reportBookingDate: string;
  readonly posDevices: readonly string[];
  readonly fdmDevices: readonly string[];
  readonly turnover: ReportTurnover;
}

/** A canonical fiscal event, the unit the signer signs and the journal records. */
export type FiscalEvent =
  | SaleEvent
  | RefundEvent
  | OrderEvent
  | WorkInEvent
  | WorkOutEvent
  | MoneyInOutEvent
  | DrawerOpenEvent
  | ReportXTurnoverEvent
  | ReportXUserEvent
  | ReportZEvent;

export type FiscalEventKind = FiscalEvent['kind'];

/** A sold line as the caller knows it: positive quantity, VAT rate in whole percent. */
export interface LineInput {
  readonly productId: string;
  readonly productName: string;
  readonly departmentId: string;
  readonly departmentName: string;
  readonly quantity: number;
  readonly unitPrice: Cents;
  readonly vatRate: number;
  readonly lineTotal: Cents;
}

const PAYMENT_NAMES: Readonly<Record<SignedPaymentType, string>> = {
  CASH: 'Cash',
  CARD_DEBIT: 'Debit card',
  CARD_CREDIT: 'Credit card',
  CHEQUE_MEAL: 'Meal voucher',
  VOUCHER_STORE: 'Gift voucher',
};

/** Names and numbers payment lines for `financials[]`; cash lines carry the drawer. */
export function toFinancials(lines: readonly PaymentLine[], drawer?: FiscalDrawer): FinancialLine[] {
  return lines.map((l, i) => ({
    ...l,
    id: String(i + 1),
    name: l.amountType === 'ROUNDING' ? 'Cash rounding' : PAYMENT_NAMES[l.type],
    ...(drawer && l.type === 'CASH' ? { drawer } : {}),
  }));
}

/** `financials[]` of a sale, built only from its frozen tender, in the order the legs were taken. */
export function financialsFromTender(tender: FrozenTender, drawer?: FiscalDrawer): FinancialLine[] {
  const lines = toFinancials(paymentLines(tender), drawer);
  const sum = lines.reduce((s, l) => s + l.amount, 0);
  if (sum !== tender.total) throw new RangeError(`Payment lines sum to ${sum}, tender total is ${tender.total}`);
  return lines;
}

function toLine(l: LineInput, sign: 1 | -1): FiscalLine {
  if (!Number.isInteger(l.quantity) || l.quantity <= 0) throw new RangeError(`Line ${l.productId}: quantity must be a positive integer`);
  if (!Number.isSafeInteger(l.lineTotal) || l.lineTotal < 0) throw new RangeError(`Line ${l.productId}: lineTotal must be non-negative cents`);
  const total = sign * l.lineTotal;
  return {
    productId: l.productId,
    productName: l.productName,
    departmentId: l.departmentId,
    departmentName: l.departmentName,
    quantity: sign * l.quantity,
    ...(sign < 0 ? { negQuantityReason: 'REFUND' as const } : {}),
    unitPrice: l.unitPrice,
    vats: [{ label: vatLabel(l.vatRate), price: total }],
    lineTotal: total,
  };
}

function transactionOf(lines: readonly LineInput[], sign: 1 | -1): FiscalTransaction {
  if (lines.length === 0) throw new RangeError('A fiscal transaction needs at least one line');
  const signed = lines.map((l) => toLine(l, sign));
  return { lines: signed, total: signed.reduce((s, l) => s + l.lineTotal, 0) };
}

/** A sale event; throws when the lines and the frozen tender disagree on the total. */
export function saleEvent(common: FiscalCommon, lines: readonly LineInput[], tender: FrozenTender, drawer?: FiscalDrawer): SaleEvent {
  const transaction = transactionOf(lines, 1);
  if (transaction.total !== tender.total) {
    throw new RangeError(`Lines total ${transaction.total}, tender total ${tender.total}`);
  }
  return { ...common, kind: 'sale', transaction, financials: financialsFromTender(tender, drawer) };
}

/**
 * A refund event from the refunded lines (given positive, as sold): quantities and totals are
 * negated with reason REFUND, and the money goes back as one negative CASH line (refunds are cash).
 * `rounding` (lines - cash handed back, the sale's cash rounding settled by this refund) makes the
 * CASH line the cash handed back, followed by a CASH ROUNDING line, so the lines still add up.
 */
export function refundEvent(common: FiscalCommon, lines: readonly LineInput[], drawer?: FiscalDrawer, rounding: Cents = 0): RefundEvent {
  const transaction = transactionOf(lines, -1);
  if (!Number.isSafeInteger(rounding)) throw new RangeError(`Refund rounding must be whole cents, got ${rounding}`);
  // The cash handed back is the lines less the rounding; the ROUNDING line keeps the lines' sum.
  const cash: PaymentLine = { type: 'CASH', amountType: 'PAYMENT', amount: transaction.total + rounding, inputMethod: 'MANUAL' };
  const payments: PaymentLine[] = rounding === 0 ? [cash] : [cash, { type: 'CASH', amountType: 'ROUNDING', amount: -rounding, inputMethod: 'AUTOMATIC' }];
  return { ...common, kind: 'refund', transaction, financials: toFinancials(payments, drawer) };
}

/** An order line as the caller knows it: the fire's signed quantity (never 0), VAT rate in whole percent. */
export interface OrderLineInput {
  readonly productId: string;
  readonly productName: string;
  readonly departmentId: string;
  readonly departmentName: string;
  /** Positive: sent to the kitchen; negative: a fired quantity taken back (a CORRECTION). */
  readonly quantity: number;
  /** Unit price after modifiers and the per-unit discount. */
  readonly unitPrice: Cents;
  readonly vatRate: number;
}

function toOrderLine(l: OrderLineInput): FiscalLine {
  if (!Number.isInteger(l.quantity) || l.quantity === 0) throw new RangeError(`Line ${l.productId}: quantity must be a non-zero integer`);
  if (!Number.isSafeInteger(l.unitPrice) || l.unitPrice < 0) throw new RangeError(`Line ${l.productId}: unitPrice must be non-negative cents`);
  const total = l.quantity * l.unitPrice;
  return {
    productId: l.productId,
    productName: l.productName,
    departmentId: l.departmentId,
    departmentName: l.departmentName,
    quantity: l.quantity,
    ...(l.quantity < 0 ? { negQuantityReason: 'CORRECTION' as const } : {}),
    unitPrice: l.unitPrice,
    vats: [{ label: vatLabel(l.vatRate), price: total }],
    lineTotal: total,
  };
}

/** An order event (signOrder) from a fire's lines; throws without lines (a fire that sends nothing signs nothing). */
export function orderEvent(common: FiscalCommon, lines: readonly OrderLineInput[]): OrderEvent {
  if (lines.length === 0) throw new RangeError('An order event needs at least one line');
  const signed = lines.map(toOrderLine);
  return { ...common, kind: 'order', transaction: { lines: signed, total: signed.reduce((s, l) => s + l.lineTotal, 0) } };
}

/** Signs a till movement amount (always given positive) by its direction. */
export function signedMovementAmount(movement: MoneyMovement, amount: Cents): Cents {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new RangeError('A till movement amount is a positive integer of cents');
  return movement === 'paid_in' || movement === 'float_issue' ? amount : -amount;
}

/** A money in/out event; `amount` is the positive amount the register sent. */
export function moneyInOutEvent(common: FiscalCommon, movement: MoneyMovement, amount: Cents, drawer?: FiscalDrawer): MoneyInOutEvent {
  return { ...common, kind: 'money_in_out', movement, amount: signedMovementAmount(movement, amount), ...(drawer ? { drawer } : {}) };
}
