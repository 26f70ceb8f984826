import { toMajor, type Cents } from '../money.ts';
import type { VatRateTotal } from '../orders/order-totals.ts';
import { TenderTally, type TenderedSale, type TenderRow, type TenderRowLabel } from './sales-by-tender.ts';

/** A settled sale of the business day: its totals' `total` and `by_vat_rate`, its frozen tender, who took it. */
export interface ReportSale extends TenderedSale {
  readonly by_vat_rate: readonly VatRateTotal[];
  readonly staff_id: string;
  readonly staff_name?: string | null;
}

/**
 * A refund of the business day. `amount` is the cash handed back, a positive number of cents;
 * `by_vat_rate` the refunded lines' VAT groups (positive; their gross adds up to `amount`).
 * Refunds always hand back cash (spec 2 refund rule 1).
 */
export interface ReportRefund {
  readonly amount: Cents;
  /** The refunded lines - the cash handed back (the sale's cash rounding this refund settled); absent reads 0. */
  readonly rounding?: Cents;
  readonly by_vat_rate: readonly VatRateTotal[];
  readonly staff_id: string;
  readonly staff_name?: string | null;
}

export interface ReportInput {
  readonly sales: readonly ReportSale[];
  readonly refunds: readonly ReportRefund[];
}

/** Turnover in cents (what the fiscal X/Z signing takes; the API converts it with `turnoverToMajor`). */
export interface TurnoverCents {
  readonly sales_count: number;
  readonly refunds_count: number;
  /** Sum of sale totals. */
  readonly gross: Cents;
  /** Sum of refund amounts, a positive magnitude. */
  readonly refunds: Cents;
  /** gross - refunds. */
  readonly net: Cents;
  /** Per rate, rate descending, sales minus refunds: sum of gross is `net`. */
  readonly by_vat_rate: readonly VatRateTotal[];
  /** The five rows of `salesByTender`, with refunds taken off the Cash row: sum of amounts is `net`. */
  readonly by_tender: readonly TenderRow[];
}

export interface UserTurnoverCents {
  readonly staff_id: string;
  readonly name: string | null;
  readonly sales_count: number;
  readonly refunds_count: number;
  readonly gross: Cents;
  readonly refunds: Cents;
  readonly net: Cents;
  readonly by_tender: readonly TenderRow[];
}

function assertRefund(r: ReportRefund): void {
  if (!Number.isSafeInteger(r.amount) || r.amount < 0) throw new RangeError(`Refund amount must be non-negative integer cents, got ${r.amount}`);
}

/**
 * The turnover of settled sales and refunds, fed a sale or refund at a time (a report over a year reads
 * them in pages instead of holding them all); `turnoverCents` is one over a `ReportInput`. The rules
 * are `turnoverCents`'s.
 */
export class TurnoverTally {
  private salesCount = 0;
  private refundsCount = 0;
  private gross = 0;
  private refunded = 0;
  private readonly tender = new TenderTally();
  private readonly vat = new Map<number, { net: number; vat: number; gross: number }>();

  addSale(s: ReportSale): void {
    this.tender.add(s);
    this.salesCount++;
    this.gross += s.total;
    for (const g of s.by_vat_rate) this.addVat(g, 1);
  }

  addRefund(r: ReportRefund): void {
    assertRefund(r);
    this.refundsCount++;
    this.refunded += r.amount;
    for (const g of r.by_vat_rate) this.addVat(g, -1);
  }

  result(): TurnoverCents {
    return {
      sales_count: this.salesCount,
      refunds_count: this.refundsCount,
      gross: this.gross,
      refunds: this.refunded,
      net: this.gross - this.refunded,
      by_vat_rate: [...this.vat.entries()].sort(([a], [b]) => b - a).map(([rate, a]) => ({ rate, net: a.net, vat: a.vat, gross: a.gross })),
      // Refunds hand back cash: they come off the Cash row.
      by_tender: this.tender.rows().map((row) => (row.label === 'Cash' ? { ...row, amount: row.amount - this.refunded } : row)),
    };
  }

  private addVat(g: VatRateTotal, sign: 1 | -1): void {
    const a = this.vat.get(g.rate) ?? { net: 0, vat: 0, gross: 0 };
    a.net += sign * g.net;
    a.vat += sign * g.vat;
    a.gross += sign * g.gross;
    this.vat.set(g.rate, a);
  }
}

/**
 * The turnover of a set of settled sales and refunds, in cents.
 * - Refunds are a positive magnitude; `net = gross - refunds`.
 * - `by_vat_rate` sums each ticket's own VAT groups (as signed on that ticket) rather than
 *   recomputing VAT on the day's gross, so the report agrees with the signed tickets to the cent.
 * - `by_tender` is `salesByTender` net of refunds: refunds hand back cash, so they reduce the Cash
 *   row (its `count` still counts sale legs only; `refunds_count` counts refunds).
 * Invariants: sum(by_vat_rate.gross) = sum(by_tender.amount) = net, when every sale's VAT groups add
 * up to its total and every refund's to its amount.
 */
export function turnoverCents(input: ReportInput): TurnoverCents {
  // Every refund checked before anything is added, as before the tally: a bad one throws the same error whatever the order.
  for (const r of input.refunds) assertRefund(r);
  const tally = new TurnoverTally();
  for (const s of input.sales) tally.addSale(s);
  for (const r of input.refunds) tally.addRefund(r);
  return tally.result();
}

/**
 * The turnover per staff member (sales and refunds attributed to who took them), sorted by name
 * then staff id; a member's name is the first non-empty `staff_name` seen, else null.
 */
export function userTurnoversCents(input: ReportInput): UserTurnoverCents[] {
  const groups = new Map<string, { name: string | null; sales: ReportSale[]; refunds: ReportRefund[] }>();
  const groupOf = (staff_id: string, name: string | null | undefined) => {
    let g = groups.get(staff_id);
    if (!g) groups.set(staff_id, (g = { name: null, sales: [], refunds: [] }));
    if (g.name === null && name) g.name = name;
    return g;
  };
  for (const s of input.sales) groupOf(s.staff_id, s.staff_name).sales.push(s);
  for (const r of input.refunds) groupOf(r.staff_id, r.staff_name).refunds.push(r);
  return [...groups.entries()]
    .map(([staff_id, g]) => {
      const t = turnoverCents({ sales: g.sales, refunds: g.refunds });
      return {
        staff_id,
        name: g.name,
        sales_count: t.sales_count,
        refunds_count: t.refunds_count,
        gross: t.gross,
        refunds: t.refunds,
        net: t.net,
        by_tender: t.by_tender,
      };
    })
    .sort((a, b) => cmp(a.name ?? '', b.name ?? '') || cmp(a.staff_id, b.staff_id));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A tender row in decimal major units. */
export interface TenderRowMajor {
  readonly label: TenderRowLabel;
  readonly amount: number;
  readonly count: number;
}

export interface VatRateTotalMajor {
  readonly rate: number;
  readonly net: number;
  readonly vat: number;
  readonly gross: number;
}

/** `turnover_x` / `turnover_z`: every money value in DECIMAL MAJOR UNITS (12.34), counts as integers. */
export interface TurnoverMajor {
  readonly sales_count: number;
  readonly refunds_count: number;
  readonly gross: number;
  readonly refunds: number;
  readonly net: number;
  readonly by_vat_rate: readonly VatRateTotalMajor[];
  readonly by_tender: readonly TenderRowMajor[];
}

/** One `user_x` / `user_z` entry, money in decimal major units. */
export interface UserTurnoverMajor {
  readonly staff_id: string;
  readonly name: string | null;
  readonly sales_count: number;
  readonly refunds_count: number;
  readonly gross: number;
  readonly refunds: number;
  readonly net: number;
  readonly by_tender: readonly TenderRowMajor[];
}

const rowsToMajor = (rows: readonly TenderRow[]): TenderRowMajor[] => rows.map((r) => ({ label: r.label, amount: toMajor(r.amount), count: r.count }));

/** Cents -> major units, converted once at the end (sums stay exact in cents). */
export function turnoverToMajor(t: TurnoverCents): TurnoverMajor {
  return {
    sales_count: t.sales_count,
    refunds_count: t.refunds_count,
    gross: toMajor(t.gross),
    refunds: toMajor(t.refunds),
    net: toMajor(t.net),
    by_vat_rate: t.by_vat_rate.map((g) => ({ rate: g.rate, net: toMajor(g.net), vat: toMajor(g.vat), gross: toMajor(g.gross) })),
    by_tender: rowsToMajor(t.by_tender),
  };
}

export function userTurnoverToMajor(u: UserTurnoverCents): UserTurnoverMajor {
  return {
    staff_id: u.staff_id,
    name: u.name,
    sales_count: u.sales_count,
    refunds_count: u.refunds_count,
    gross: toMajor(u.gross),
    refunds: toMajor(u.refunds),
    net: toMajor(u.net),
    by_tender: rowsToMajor(u.by_tender),
  };
}

/** `GET /pos/business-day/x-report` body: `{turnover_x, user_x}`, decimal major units. */
export interface XReport {
  readonly turnover_x: TurnoverMajor;
  readonly user_x: readonly UserTurnoverMajor[];
}

/** The X report (read-only, the day stays open) of the business day's settled sales and refunds. */
export function xReport(input: ReportInput): XReport {
  return { turnover_x: turnoverToMajor(turnoverCents(input)), user_x: userTurnoversCents(input).map(userTurnoverToMajor) };
}

/** The Z report: the X aggregation of the closed day, plus its report number (sequential per fiscal device). */
export interface ZReport {
  readonly report_number: number;
  readonly turnover_z: TurnoverMajor;
  readonly user_z: readonly UserTurnoverMajor[];
}

export function zReport(input: ReportInput & { readonly report_number: number }): ZReport {
  if (!Number.isSafeInteger(input.report_number) || input.report_number < 1) {
    throw new RangeError(`report_number must be a positive integer, got ${input.report_number}`);
  }
  const x = xReport(input);
  return { report_number: input.report_number, turnover_z: x.turnover_x, user_z: x.user_x };
}
