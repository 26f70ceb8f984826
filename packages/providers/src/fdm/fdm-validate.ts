// Input validation of the FDM simulator: a refusal names the offending field as its sub-code,
// e.g. `vatNo` or `transaction.transactionLines[0].mainProduct.vats[0].label`.

import { isUuid } from '@pos/domain/ids';

/** A refusal the simulator answers as a GraphQL error with code INVALID_REQUEST. */
export class InvalidRequest extends Error {
  constructor(readonly subCode: string, message?: string) {
    super(message ?? `Invalid or missing field ${subCode}`);
  }
}

type Obj = Record<string, unknown>;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function obj(v: unknown, path: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidRequest(path);
  return v as Obj;
}
function str(o: Obj, key: string, prefix = '', test?: (s: string) => boolean): string {
  const v = o[key];
  if (typeof v !== 'string' || v.trim() === '' || (test && !test(v))) throw new InvalidRequest(prefix + key);
  return v;
}
function num(o: Obj, key: string, prefix = '', test?: (n: number) => boolean): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || (test && !test(v))) throw new InvalidRequest(prefix + key);
  return v;
}
function list(o: Obj, key: string, prefix = ''): unknown[] {
  const v = o[key];
  if (!Array.isArray(v) || v.length === 0) throw new InvalidRequest(prefix + key);
  return v;
}
function oneOf(values: readonly string[]) {
  return (s: string) => values.includes(s);
}
const cents = (major: number) => Math.round(major * 100);

export function validateCommon(data: Obj): void {
  str(data, 'language', '', oneOf(['NL', 'FR', 'DE', 'EN']));
  for (const k of ['vatNo', 'estNo', 'posId', 'posSwVersion', 'terminalId', 'deviceId', 'employeeId']) str(data, k);
  num(data, 'posFiscalTicketNo', '', (n) => Number.isSafeInteger(n) && n >= 0);
  str(data, 'posDateTime', '', (s) => !Number.isNaN(Date.parse(s)));
  str(data, 'bookingPeriodId', '', isUuid);
  str(data, 'bookingDate', '', (s) => DAY.test(s));
  str(data, 'ticketMedium', '', oneOf(['PAPER', 'ELECTRONIC', 'NONE']));
}

/** Validates financials[] and returns their sum in cents (tips excluded). */
function validateFinancials(data: Obj): number {
  let sum = 0;
  list(data, 'financials').forEach((raw, i) => {
    const p = `financials[${i}].`;
    const f = obj(raw, `financials[${i}]`);
    str(f, 'id', p);
    str(f, 'name', p);
    str(f, 'type', p, oneOf(['CASH', 'CARD_DEBIT', 'CARD_CREDIT', 'CHEQUE_MEAL', 'VOUCHER_STORE']));
    str(f, 'inputMethod', p, oneOf(['MANUAL', 'AUTOMATIC']));
    const amountType = str(f, 'amountType', p, oneOf(['PAYMENT', 'TIP', 'ROUNDING']));
    const amount = num(f, 'amount', p);
    if (amountType !== 'TIP') sum += cents(amount);
  });
  return sum;
}

/** Validates `transaction` and returns its total in cents. */
function validateTransaction(data: Obj): number {
  const t = obj(data.transaction, 'transaction');
  let lineSum = 0;
  list(t, 'transactionLines', 'transaction.').forEach((raw, i) => {
    const p = `transaction.transactionLines[${i}]`;
    const line = obj(raw, p);
    str(line, 'lineType', `${p}.`, oneOf(['SINGLE_PRODUCT', 'COMPOSITE_PRODUCT']));
    const mp = obj(line.mainProduct, `${p}.mainProduct`);
    const mpp = `${p}.mainProduct.`;
    str(mp, 'productId', mpp);
    str(mp, 'productName', mpp);
    const qty = num(mp, 'quantity', mpp, (n) => n !== 0);
    if (qty < 0) str(mp, 'negQuantityReason', mpp, oneOf(['REFUND', 'CORRECTION', 'WASTE', 'DAMAGE']));
    num(mp, 'unitPrice', mpp);
    list(mp, 'vats', mpp).forEach((v, j) => {
      const vo = obj(v, `${mpp}vats[${j}]`);
      str(vo, 'label', `${mpp}vats[${j}].`, oneOf(['A', 'B', 'C', 'D', 'X']));
      num(vo, 'price', `${mpp}vats[${j}].`);
    });
    lineSum += cents(num(line, 'lineTotal', `${p}.`));
  });
  const total = cents(num(t, 'transactionTotal', 'transaction.'));
  if (total !== lineSum) throw new InvalidRequest('transaction.transactionTotal', 'transactionTotal is not the sum of the line totals');
  return total;
}

export function validateSale(data: Obj): void {
  const total = validateTransaction(data);
  if (validateFinancials(data) !== total) throw new InvalidRequest('financials', 'financials do not add up to transactionTotal');
}

/** An order (signOrder): a sale's transaction, nothing paid, so no financials. */
export function validateOrder(data: Obj): void {
  validateTransaction(data);
  if (data.financials !== undefined) throw new InvalidRequest('financials', 'an order carries no financials');
}

export function validateMoneyInOut(data: Obj): void {
  if (validateFinancials(data) === 0) throw new InvalidRequest('financials', 'a money in/out moves a non-zero amount');
}

export function validateTurnover(v: unknown, path: string): void {
  const t = obj(v, path);
  num(t, 'total', `${path}.`);
}

export function validateReportZ(data: Obj): void {
  num(data, 'reportNo', '', (n) => Number.isSafeInteger(n) && n > 0);
  str(data, 'reportBookingDate', '', (s) => DAY.test(s));
  validateTurnover(data.turnover, 'turnover');
}

export function validateUserX(data: Obj): void {
  if (!Array.isArray(data.users)) throw new InvalidRequest('users');
  data.users.forEach((u: unknown, i: number) => {
    const uo = obj(u, `users[${i}]`);
    str(uo, 'employeeId', `users[${i}].`);
    validateTurnover(uo.turnover, `users[${i}].turnover`);
  });
}

export function asObject(v: unknown, path: string): Obj {
  return obj(v, path);
}
