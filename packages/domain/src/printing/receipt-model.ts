/**
 * What a printer prints, as plain data (issue 15 point 6). Amounts are integer cents except report
 * rows, which are preformatted text (X and Z report values are decimal major units). Dates arrive as
 * text already formatted in the location's time zone: the renderer stays pure.
 */
export interface ReceiptHeader {
  /** Business name, then address and VAT number lines as given by the location's receipt settings. */
  readonly title: string;
  readonly lines?: readonly string[];
  /** The location's own receipt header text (receipt settings `header`), one entry per line. */
  readonly note?: readonly string[];
}

export interface ReceiptLine {
  readonly name: string;
  readonly qty: number;
  /** Line total, cents (negative on a refund). */
  readonly amount: number;
  readonly modifiers?: readonly string[];
}

export interface VatRow {
  /** Percent, e.g. 21. */
  readonly rate: number;
  readonly net: number;
  readonly vat: number;
  readonly gross: number;
}

export interface TenderRow {
  readonly label: string;
  readonly amount: number;
}

/** A customer receipt: register sale or refund, kiosk or online order. */
export interface CustomerReceipt {
  readonly kind: 'sale' | 'refund' | 'order';
  readonly header: ReceiptHeader;
  /** Ticket / order number as shown. */
  readonly number: string;
  /** Receipt settings `show_order_number: false` leaves the number off; shown when absent. */
  readonly show_number?: boolean;
  readonly date: string;
  /** Channel name for kiosk and online orders (`Kiosk`, `Online`). */
  readonly channel?: string;
  readonly lines: readonly ReceiptLine[];
  /**
   * What the total holds besides the lines (tip, fees, an order discount not spread on the lines),
   * printed under a subtotal of the lines so the receipt adds up to TOTAL (`orderChargeRows`).
   */
  readonly charges?: readonly TenderRow[];
  readonly vat: readonly VatRow[];
  readonly total: number;
  readonly tenders: readonly TenderRow[];
  readonly change?: number;
  /** From the fiscal journal entry of the sale or refund. */
  readonly fiscal?: { readonly short_signature?: string; readonly verification_url?: string };
  readonly footer?: readonly string[];
}

export interface KitchenTicket {
  readonly kind: 'kitchen';
  readonly station: string;
  readonly order_no: string;
  readonly date: string;
  /** A scheduled order's due date and time ("01/12/2026 12:30"), printed as "Due ..." under the heading. */
  readonly due?: string;
  readonly note?: string;
  readonly lines: readonly { readonly qty: number; readonly name: string; readonly modifiers?: readonly string[] }[];
}

export interface ReportPrint {
  readonly kind: 'report';
  /** `X report`, `Z report 12`... */
  readonly title: string;
  readonly header: ReceiptHeader;
  readonly date: string;
  readonly sections: readonly { readonly title: string; readonly rows: readonly (readonly [string, string])[] }[];
}

export interface TestPrint {
  readonly kind: 'test';
  readonly printer: string;
  readonly date: string;
  readonly lines?: readonly string[];
}

export type PrintModel = CustomerReceipt | KitchenTicket | ReportPrint | TestPrint;
