import { toMajorUnits } from '@pos/domain/money';
import type { FinancialLine, FiscalEvent, FiscalLine, ReportTurnover } from './events.ts';

// The FDM GraphQL wire. Amounts (unit prices, line and transaction totals, VAT prices, payment
// amounts, turnovers) go out as decimal major units (12.5 for 1250 cents): this module is the only
// place that converts. Input type names and the turnover shape follow our simulator; check them
// against the vendor schema before going live.

export type FdmOperation =
  | 'signSale'
  | 'signOrder'
  | 'signMoneyInOut'
  | 'signDrawerOpen'
  | 'signWorkIn'
  | 'signWorkOut'
  | 'signReportTurnoverX'
  | 'signReportUserX'
  | 'signReportTurnoverZ';

export const FDM_INPUT_TYPES: Readonly<Record<FdmOperation, string>> = {
  signSale: 'SaleInput',
  signOrder: 'OrderInput',
  signMoneyInOut: 'MoneyInOutInput',
  signDrawerOpen: 'DrawerOpenInput',
  signWorkIn: 'WorkInOutInput',
  signWorkOut: 'WorkInOutInput',
  signReportTurnoverX: 'ReportTurnoverXInput',
  signReportUserX: 'ReportUserXInput',
  signReportTurnoverZ: 'ReportTurnoverZInput',
};

/** The module operation for an event (a refund is a sale with negative quantities). */
export function fdmOperationOf(event: FiscalEvent): FdmOperation {
  switch (event.kind) {
    case 'sale':
    case 'refund':
      return 'signSale';
    case 'order':
      return 'signOrder';
    case 'money_in_out':
      return 'signMoneyInOut';
    case 'drawer_open':
      return 'signDrawerOpen';
    case 'work_in':
      return 'signWorkIn';
    case 'work_out':
      return 'signWorkOut';
    case 'report_x_turnover':
      return 'signReportTurnoverX';
    case 'report_x_user':
      return 'signReportUserX';
    case 'report_z':
      return 'signReportTurnoverZ';
  }
}

/** Result fields as the module returns them (amounts in major units). */
export interface FdmSignResponse {
  readonly posId: string;
  readonly posFiscalTicketNo: number;
  readonly posDateTime: string;
  readonly terminalId: string;
  readonly deviceId: string;
  readonly eventOperation: string;
  readonly fdmRef: { readonly fdmId: string; readonly fdmDateTime: string; readonly eventLabel: string; readonly eventCounter: number; readonly totalCounter: number };
  readonly fdmSwVersion: string;
  readonly digitalSignature: string;
  readonly shortSignature?: string | null;
  readonly verificationUrl?: string | null;
  readonly vatCalc: readonly { readonly label: string; readonly rate: number; readonly taxableAmount: number; readonly vatAmount: number; readonly totalAmount: number; readonly outOfScope: boolean }[];
  readonly bufferCapacityUsed: number;
  readonly warnings: readonly unknown[];
  readonly informations: readonly unknown[];
  readonly footer: readonly string[];
}

const RESULT_SELECTION =
  'posId posFiscalTicketNo posDateTime terminalId deviceId eventOperation ' +
  'fdmRef { fdmId fdmDateTime eventLabel eventCounter totalCounter } fdmSwVersion digitalSignature shortSignature verificationUrl ' +
  'vatCalc { label rate taxableAmount vatAmount totalAmount outOfScope } bufferCapacityUsed warnings informations footer';

/** The GraphQL document of one operation. */
export function fdmQuery(op: FdmOperation): string {
  return `mutation ${op}($data: ${FDM_INPUT_TYPES[op]}!, $isTraining: Boolean!) { ${op}(data: $data, isTraining: $isTraining) { ${RESULT_SELECTION} } }`;
}

const line = (l: FiscalLine) => ({
  lineType: 'SINGLE_PRODUCT',
  mainProduct: {
    productId: l.productId,
    productName: l.productName,
    departmentId: l.departmentId,
    departmentName: l.departmentName,
    quantity: l.quantity,
    quantityType: 'PIECE',
    negQuantityReason: l.negQuantityReason,
    unitPrice: toMajorUnits(l.unitPrice),
    vats: l.vats.map((v) => ({ label: v.label, price: toMajorUnits(v.price), priceChanges: [] })),
  },
  lineTotal: toMajorUnits(l.lineTotal),
});

const financial = (f: FinancialLine) => ({
  id: f.id,
  name: f.name,
  type: f.type,
  provider: f.provider,
  inputMethod: f.inputMethod,
  amount: toMajorUnits(f.amount),
  amountType: f.amountType,
  drawer: f.drawer,
});

const turnover = (t: ReportTurnover) => ({
  saleCount: t.saleCount,
  refundCount: t.refundCount,
  sales: toMajorUnits(t.sales),
  refunds: toMajorUnits(t.refunds),
  total: toMajorUnits(t.total),
  vats: t.vats.map((v) => ({ label: v.label, taxableAmount: toMajorUnits(v.taxableAmount), vatAmount: toMajorUnits(v.vatAmount), totalAmount: toMajorUnits(v.totalAmount) })),
  payments: t.payments.map((p) => ({ type: p.type, amountType: p.amountType, amount: toMajorUnits(p.amount) })),
});

const MOVEMENT_NAMES = { paid_in: 'Paid in', paid_out: 'Paid out', float_issue: 'Float issued', float_return: 'Float returned' } as const;

/** The `data` variable of an event. Undefined optional fields are dropped by JSON.stringify. */
export function toFdmData(event: FiscalEvent): Record<string, unknown> {
  const common = {
    language: event.language,
    vatNo: event.vatNo,
    estNo: event.estNo,
    posId: event.posId,
    posFiscalTicketNo: event.posFiscalTicketNo,
    posDateTime: event.posDateTime,
    posSwVersion: event.posSwVersion,
    terminalId: event.terminalId,
    deviceId: event.deviceId,
    bookingPeriodId: event.bookingPeriodId,
    bookingDate: event.bookingDate,
    ticketMedium: event.ticketMedium,
    employeeId: event.employeeId,
  };
  switch (event.kind) {
    case 'sale':
    case 'refund':
      return {
        ...common,
        transaction: { transactionLines: event.transaction.lines.map(line), transactionTotal: toMajorUnits(event.transaction.total) },
        financials: event.financials.map(financial),
      };
    case 'order':
      // Nothing is paid at a fire: the lines only, no financials.
      return { ...common, transaction: { transactionLines: event.transaction.lines.map(line), transactionTotal: toMajorUnits(event.transaction.total) } };
    case 'money_in_out':
      return {
        ...common,
        financials: [{ id: '1', name: MOVEMENT_NAMES[event.movement], type: 'CASH', inputMethod: 'MANUAL', amount: toMajorUnits(event.amount), amountType: 'PAYMENT', drawer: event.drawer }],
      };
    case 'drawer_open':
      return { ...common, drawer: event.drawer };
    case 'work_in':
    case 'work_out':
      return common;
    case 'report_x_turnover':
      return { ...common, turnover: turnover(event.turnover) };
    case 'report_x_user':
      return { ...common, users: event.users.map((u) => ({ employeeId: u.employeeId, turnover: turnover(u.turnover) })) };
    case 'report_z':
      return {
        ...common,
        reportNo: event.reportNo,
        reportBookingDate: event.reportBookingDate,
        posDevices: event.posDevices,
        fdmDevices: event.fdmDevices,
        turnover: turnover(event.turnover),
      };
  }
}

/** The GraphQL request body for an event. */
export function fdmRequest(event: FiscalEvent): { query: string; operationName: FdmOperation; variables: { data: Record<string, unknown>; isTraining: boolean } } {
  const op = fdmOperationOf(event);
  return { query: fdmQuery(op), operationName: op, variables: { data: toFdmData(event), isTraining: event.isTraining } };
}
