import type { Cents } from '../money.ts';
import type { VatRateTotal } from '../orders/order-totals.ts';
import { TRANSACTION_CHANNELS, type TransactionChannel } from '../payments/transaction-values.ts';

/**
 * Where a sale was taken, for the back-office reports: the first-party register, or one of the
 * channels whose orders are transactions (kiosk, online ordering, table QR, marketplace delivery).
 */
export const SALES_CHANNELS = ['register', ...TRANSACTION_CHANNELS] as const;
export type SalesChannel = (typeof SALES_CHANNELS)[number];

/** The sales of one channel over a report's window, integer cents. */
export interface ChannelFigures {
  readonly sales_count: number;
  readonly refunds_count: number;
  /** What the goods sold for, their discounts taken off; tips and fees left out. */
  readonly gross: Cents;
  /**
   * The refunded goods' turnover (as `gross` counts a sale), a positive magnitude. Not the cash handed
   * back: a register refund of a cash-rounded sale hands back what was paid (the Z detail's figure).
   */
  readonly refunds: Cents;
  /** Tips paid on top of the sales (they are not turnover). */
  readonly tips: Cents;
  /** Fees charged on top of the goods (a marketplace's delivery fee). */
  readonly fees: Cents;
}

export interface ChannelRow extends ChannelFigures {
  readonly channel: SalesChannel;
  /** gross - refunds. */
  readonly net: Cents;
}

export type SalesTotals = Omit<ChannelRow, 'channel'>;

const ZERO: ChannelFigures = { sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, tips: 0, fees: 0 };

/** Every channel, in `SALES_CHANNELS` order, zeros where a channel sold nothing. */
export function channelRows(figures: Partial<Record<SalesChannel, ChannelFigures>>): ChannelRow[] {
  return SALES_CHANNELS.map((channel) => {
    const f = figures[channel] ?? ZERO;
    return { channel, sales_count: f.sales_count, refunds_count: f.refunds_count, gross: f.gross, refunds: f.refunds, net: f.gross - f.refunds, tips: f.tips, fees: f.fees };
  });
}

/** The sum of the channel rows. */
export function totalsOf(rows: readonly ChannelRow[]): SalesTotals {
  const t = { sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 };
  for (const r of rows) {
    t.sales_count += r.sales_count;
    t.refunds_count += r.refunds_count;
    t.gross += r.gross;
    t.refunds += r.refunds;
    t.net += r.net;
    t.tips += r.tips;
    t.fees += r.fees;
  }
  return t;
}

/** VAT groups added up per rate, rate descending (a rate whose groups cancel out stays, at zero). */
export function mergeVatRates(...lists: readonly (readonly VatRateTotal[])[]): VatRateTotal[] {
  const acc = new Map<number, { net: number; vat: number; gross: number }>();
  for (const list of lists) {
    for (const g of list) {
      const a = acc.get(g.rate) ?? { net: 0, vat: 0, gross: 0 };
      a.net += g.net;
      a.vat += g.vat;
      a.gross += g.gross;
      acc.set(g.rate, a);
    }
  }
  return [...acc.entries()].sort(([a], [b]) => b - a).map(([rate, a]) => ({ rate, net: a.net, vat: a.vat, gross: a.gross }));
}

export const isTransactionChannel = (c: string): c is TransactionChannel => (TRANSACTION_CHANNELS as readonly string[]).includes(c);
