import { TenantStatement, uuidIn, type TenantDb, type TenantTables, type TenantTx } from '@pos/db';
import type { Selectable } from 'kysely';
import { renderEposFitting } from '@pos/domain/printing/render';
import { lineModifierNames, nameWithVariant } from '@pos/domain/catalog/variants';
import { orderChargeRows, orderTenderRows } from '@pos/domain/printing/order-receipt';
import type { CustomerReceipt, PrintModel, ReceiptLine, TenderRow, VatRow } from '@pos/domain/printing/receipt-model';
import { enqueuePrintJob } from './print-jobs.ts';
import { effectiveSettings, profileSettingsOf, type EffectivePrinterSettings } from './printer-settings.ts';
import { tableLabels } from '../table-qr/table-labels.ts';

/**
 * What gets printed when things happen (issue 15 point 6): builds the print model from the stored
 * records, renders it once per printer (paper width) and queues it. Customer receipts, reports and
 * test prints go to the location's receipt printers; kitchen tickets to the printers of the ticket's
 * station. Printers not yet configured get nothing; configured ones keep the job until they poll.
 * The source key makes a re-run (a retried job, a repeated hook) queue nothing new.
 */

type Db = TenantDb | TenantTx;

/** Date and time as printed, in the location's time zone. */
export function printedDate(at: Date, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hour12: false }).format(at).replace(',', '');
  } catch {
    return at.toISOString().slice(0, 16).replace('T', ' ');
  }
}

type PrinterRow = Pick<Selectable<TenantTables['printers']>, 'id' | 'paper_width_mm' | 'poll_interval_seconds' | 'name' | 'printer_profile_id' | 'location_id' | 'station_id'>;
const PRINTER_COLUMNS = 'id, paper_width_mm, poll_interval_seconds, name, printer_profile_id, location_id, station_id';
/** $1 location ids: their receipt printers that get jobs, in id order. */
const receiptPrintersStatement = new TenantStatement<PrinterRow>(
  'print_receipt_printers',
  `select ${PRINTER_COLUMNS} from $schema.printers where state in ('configured', 'paired') and role = 'receipt' and location_id = any($1::uuid[]) order by id`,
);
/** $1 station ids: their kitchen printers that get jobs, in id order. Prepared: every post-capture batch asks. */
const kitchenPrintersStatement = new TenantStatement<PrinterRow>(
  'print_kitchen_printers',
  `select ${PRINTER_COLUMNS} from $schema.printers where state in ('configured', 'paired') and role = 'kitchen' and station_id = any($1::uuid[]) order by id`,
);

/** Printers that get jobs, by id; `location_id` and `station_id` say whose they are. */
async function printersOf(db: Db, where: { locationIds: readonly string[]; role: 'receipt' } | { stationIds: readonly string[]; role: 'kitchen' }): Promise<PrinterRow[]> {
  const ids = 'stationIds' in where ? where.stationIds : where.locationIds;
  if (!ids.length) return [];
  return ('stationIds' in where ? kitchenPrintersStatement : receiptPrintersStatement).execute(db, [[...new Set(ids)]]);
}
type Printers = PrinterRow[];

/** Printers grouped by `key` (a location or station id), each group still in id order. */
function groupPrinters(printers: Printers, key: 'location_id' | 'station_id'): Map<string, Printers> {
  const groups = new Map<string, Printers>();
  for (const p of printers) {
    const k = p[key];
    if (k === null) continue;
    const list = groups.get(k);
    if (list) list.push(p);
    else groups.set(k, [p]);
  }
  return groups;
}

const isCustomer = (m: PrintModel): m is CustomerReceipt => m.kind === 'sale' || m.kind === 'refund' || m.kind === 'order';

/**
 * The model as one printer prints it, after its settings (its profile's, when bound): customer
 * receipts end with the profile's `receipt_footer` lines, kitchen tickets lose their modifiers when
 * `print_kitchen_modifiers` is false.
 */
function shapedFor(model: PrintModel, s: EffectivePrinterSettings): PrintModel {
  if (isCustomer(model)) return s.receipt_footer.length ? { ...model, footer: [...(model.footer ?? []), ...s.receipt_footer] } : model;
  if (model.kind === 'kitchen' && !s.print_kitchen_modifiers) return { ...model, lines: model.lines.map(({ modifiers: _, ...l }) => l) };
  return model;
}

async function queueFor(db: Db, printers: Printers, kind: string, sourceKey: string | null, model: PrintModel): Promise<number> {
  let n = 0;
  const profiles = await profileSettingsOf(db, printers);
  const rendered = new Map<string, string>();
  for (const p of printers) {
    const settings = effectiveSettings(p, profiles);
    // Printers that print the same thing share one rendering.
    const key = `${settings.paper_width_mm}|${isCustomer(model) ? settings.receipt_footer.join('\n') : ''}|${model.kind === 'kitchen' && settings.print_kitchen_modifiers}`;
    let document = rendered.get(key);
    if (document === undefined) rendered.set(key, (document = renderEposFitting(shapedFor(model, settings), { paperWidthMm: settings.paper_width_mm })));
    if (await enqueuePrintJob(db, { printerId: p.id, kind, sourceKey, document })) n++;
  }
  return n;
}

async function headerOf(db: Db, locationId: string) {
  const loc = await db.selectFrom('locations').select(['name', 'address', 'vat_no', 'timezone']).where('id', '=', locationId).executeTakeFirst();
  return {
    timezone: loc?.timezone ?? 'UTC',
    header: { title: loc?.name ?? '', lines: [loc?.address, loc?.vat_no ? `VAT ${loc.vat_no}` : null].filter((x): x is string => !!x) },
  };
}

const textLines = (t: string | null | undefined): string[] => (t ?? '').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);

/**
 * Header and footer of a customer receipt as the location's receipt settings say (settings
 * `location_receipts`; a location without a stored layout prints the defaults: everything shown,
 * no header or footer text). The footer comes before any printer profile footer.
 */
async function customerHeaderOf(db: Db, locationId: string) {
  const [loc, rs] = await Promise.all([
    db.selectFrom('locations').select(['name', 'address', 'vat_no', 'timezone']).where('id', '=', locationId).executeTakeFirst(),
    db.selectFrom('location_receipts').select(['header', 'footer', 'show_address', 'show_vat_number', 'show_order_number']).where('location_id', '=', locationId).executeTakeFirst(),
  ]);
  const showAddress = rs?.show_address ?? true;
  const showVat = rs?.show_vat_number ?? true;
  const note = textLines(rs?.header);
  const footer = textLines(rs?.footer);
  return {
    timezone: loc?.timezone ?? 'UTC',
    header: {
      title: loc?.name ?? '',
      lines: [showAddress ? loc?.address : null, showVat && loc?.vat_no ? `VAT ${loc.vat_no}` : null].filter((x): x is string => !!x),
      ...(note.length ? { note } : {}),
    },
    layout: { ...(rs && !rs.show_order_number ? { show_number: false } : {}), ...(footer.length ? { footer } : {}) },
  };
}

const parse = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));
const TENDER_LABELS: Record<string, string> = { cash: 'Cash', card: 'Card', meal_voucher: 'Meal voucher', gift_voucher: 'Gift voucher' };
interface StoredLeg {
  kind: string;
  amount: number;
  tendered?: number;
  funding?: string;
}
function tenderRows(tender: { legs?: StoredLeg[]; rounding?: number } | null): TenderRow[] {
  const rows: TenderRow[] = [];
  for (const leg of tender?.legs ?? []) {
    const label = leg.kind === 'card' && leg.funding ? `Card (${leg.funding})` : (TENDER_LABELS[leg.kind] ?? 'Unknown');
    rows.push({ label, amount: leg.kind === 'cash' && leg.tendered !== undefined ? leg.tendered : leg.amount });
  }
  if (tender?.rounding) rows.push({ label: 'Rounding', amount: -tender.rounding });
  return rows;
}
const vatRows = (v: unknown): VatRow[] => (parse<{ rate: number; net: number; vat: number; gross: number }[] | null>(v) ?? []).map((r) => ({ rate: Number(r.rate), net: r.net, vat: r.vat, gross: r.gross }));

/**
 * The customer receipt of a settled register sale (`sale:<order id>`). With `locationId` known (the
 * settle route), a location without receipt printers costs one query and nothing more.
 */
export async function queueSaleReceipt(db: Db, orderId: string, now: Date, locationId?: string): Promise<number> {
  if (locationId && !(await printersOf(db, { locationIds: [locationId], role: 'receipt' })).length) return 0;
  const o = await db.selectFrom('pos_orders').select(['id', 'location_id', 'lines', 'totals', 'tender', 'fiscal', 'settled_at', 'state']).where('id', '=', orderId).executeTakeFirst();
  if (!o || o.state !== 'SETTLED') return 0;
  const printers = await printersOf(db, { locationIds: [o.location_id], role: 'receipt' });
  if (!printers.length) return 0;
  const { header, timezone, layout } = await customerHeaderOf(db, o.location_id);
  const totals = parse<{ total: number; by_vat_rate?: unknown }>(o.totals);
  const tender = parse<{ legs?: StoredLeg[]; rounding?: number; change?: number } | null>(o.tender);
  const fiscal = parse<{ short_signature?: string; verification_url?: string } | null>(o.fiscal) ?? {};
  const lines: ReceiptLine[] = (parse<{ name: string; qty: number; line_total: number; modifiers?: unknown }[]>(o.lines) ?? []).map((l) => ({ name: l.name, qty: l.qty, amount: l.line_total, modifiers: lineModifierNames(l.modifiers) }));
  const receipt: CustomerReceipt = {
    kind: 'sale',
    header,
    number: o.id.slice(-8).toUpperCase(),
    date: printedDate(o.settled_at ?? now, timezone),
    lines,
    vat: vatRows(totals.by_vat_rate),
    total: totals.total,
    tenders: tenderRows(tender),
    ...(tender?.change ? { change: tender.change } : {}),
    fiscal: { ...(fiscal.short_signature ? { short_signature: fiscal.short_signature } : {}), ...(fiscal.verification_url ? { verification_url: fiscal.verification_url } : {}) },
    ...layout,
  };
  return queueFor(db, printers, 'sale_receipt', `sale:${o.id}`, receipt);
}

/** The receipt of a register refund (`refund:<id>`): cash handed back, signed. */
export async function queueRefundReceipt(db: Db, refundId: string, now: Date): Promise<number> {
  const r = await db.selectFrom('pos_refunds').select(['id', 'location_id', 'amount', 'rounding', 'by_vat_rate', 'fiscal', 'created_at', 'transaction_id']).where('id', '=', refundId).executeTakeFirst();
  if (!r) return 0;
  const printers = await printersOf(db, { locationIds: [r.location_id], role: 'receipt' });
  if (!printers.length) return 0;
  const { header, timezone, layout } = await customerHeaderOf(db, r.location_id);
  const refunded = await db
    .selectFrom('pos_refund_lines')
    .innerJoin('pos_transactions', 'pos_transactions.id', 'pos_refund_lines.transaction_id')
    .innerJoin('pos_orders', 'pos_orders.id', 'pos_transactions.order_id')
    .select(['pos_refund_lines.line_uuid', 'pos_refund_lines.amount', 'pos_orders.lines'])
    .where('pos_refund_lines.refund_id', '=', r.id)
    .execute();
  const lines: ReceiptLine[] = refunded.map((l) => {
    const line = (parse<{ uuid: string; name: string; qty: number }[]>(l.lines) ?? []).find((x) => x.uuid === l.line_uuid);
    return { name: line?.name ?? 'Item', qty: -(line?.qty ?? 1), amount: -Math.abs(l.amount) };
  });
  const fiscal = parse<{ short_signature?: string; verification_url?: string } | null>(r.fiscal) ?? {};
  const total = -Math.abs(r.amount);
  const receipt: CustomerReceipt = {
    kind: 'refund',
    header,
    number: r.id.slice(-8).toUpperCase(),
    date: printedDate(r.created_at ?? now, timezone),
    lines,
    vat: vatRows(r.by_vat_rate).map((v) => ({ rate: v.rate, net: -Math.abs(v.net), vat: -Math.abs(v.vat), gross: -Math.abs(v.gross) })),
    total,
    // The cash handed back, then the sale's rounding it settled (as the sale receipt prints it).
    tenders: r.rounding ? [{ label: 'Cash', amount: total + Number(r.rounding) }, { label: 'Rounding', amount: Number(r.rounding) }] : [{ label: 'Cash', amount: total }],
    fiscal: { ...(fiscal.short_signature ? { short_signature: fiscal.short_signature } : {}), ...(fiscal.verification_url ? { verification_url: fiscal.verification_url } : {}) },
    ...layout,
  };
  return queueFor(db, printers, 'refund_receipt', `refund:${r.id}`, receipt);
}

const CHANNEL_LABELS: Record<string, string> = { kiosk: 'Kiosk', online_ordering: 'Online', table_qr: 'Table QR', delivery: 'Delivery' };

/**
 * $1 transaction ids. Those whose location has a receipt printer, with what their receipt shows: prepared,
 * since every post-capture batch asks (and, where no location has a printer, this is all it costs).
 */
const receiptOrdersStatement = new TenantStatement<Pick<Selectable<TenantTables['transactions']>, 'id' | 'location_id' | 'channel' | 'order_no' | 'payment_provider' | 'total' | 'tip_amount' | 'fees' | 'by_vat_rate' | 'is_free'>>(
  'print_receipt_orders',
  `select t.id, t.location_id, t.channel, t.order_no, t.payment_provider, t.total, t.tip_amount, t.fees, t.by_vat_rate, t.is_free
   from $schema.transactions t
   where t.id = any($1::uuid[])
     and exists (select 1 from $schema.printers p where p.location_id = t.location_id and p.state in ('configured', 'paired') and p.role = 'receipt')`,
);

/** The customer receipt of a captured kiosk or online order (`order:<transaction id>`). */
export async function queueOrderReceipt(db: Db, transactionId: string, now: Date): Promise<number> {
  return queueOrderReceipts(db, [transactionId], now);
}

/**
 * The customer receipts of captured kiosk or online orders (`order:<transaction id>`), in the order
 * given. The first statement keeps only the transactions whose location has a receipt printer: when
 * none has, that one statement is the whole cost, whatever the number of transactions.
 */
export async function queueOrderReceipts(db: Db, transactionIds: readonly string[], now: Date): Promise<number> {
  const ids = [...new Set(transactionIds)];
  if (!ids.length) return 0;
  const found = await receiptOrdersStatement.execute(db, [ids]);
  if (!found.length) return 0;
  const byId = new Map(found.map((t) => [t.id, t]));
  const txs = ids.flatMap((id) => byId.get(id) ?? []);
  const locationIds = [...new Set(txs.map((t) => t.location_id))];
  const printersAt = groupPrinters(await printersOf(db, { locationIds, role: 'receipt' }), 'location_id');
  const lines = await db.selectFrom('transaction_lines').select(['transaction_id', 'name', 'qty', 'total', 'modifiers', 'variant']).where(uuidIn('transaction_id', txs.map((t) => t.id))).orderBy('transaction_id').orderBy('position').execute();
  // The table of a table QR order is printed with its number ("6 · Terrace 7"): the receipt goes to the table.
  const tabled = txs.filter((t) => t.channel === 'table_qr').map((t) => t.id);
  const tables = tabled.length > 0 ? await tableLabels(db, tabled) : new Map<string, string>();
  const headers = new Map<string, Awaited<ReturnType<typeof customerHeaderOf>>>();
  let n = 0;
  for (const t of txs) {
    // A printer retired since the first statement: nothing for its location, as with no printer.
    const printers = printersAt.get(t.location_id);
    if (!printers) continue;
    let h = headers.get(t.location_id);
    if (!h) headers.set(t.location_id, (h = await customerHeaderOf(db, t.location_id)));
    const { header, timezone, layout } = h;
    const printed = lines.filter((l) => l.transaction_id === t.id).map((l) => ({ name: nameWithVariant(l.name, l.variant), qty: l.qty, amount: l.total, modifiers: lineModifierNames(l.modifiers) }));
    const charges = orderChargeRows({ linesTotal: printed.reduce((n, l) => n + l.amount, 0), tip: t.tip_amount, fees: t.fees, total: t.total });
    const receipt: CustomerReceipt = {
      kind: 'order',
      channel: CHANNEL_LABELS[t.channel] ?? 'Order',
      header,
      number: tables.has(t.id) ? `${t.order_no} · ${tables.get(t.id)}` : String(t.order_no),
      date: printedDate(now, timezone),
      lines: printed,
      ...(charges.length ? { charges } : {}),
      vat: vatRows(t.by_vat_rate),
      total: t.total,
      tenders: orderTenderRows(t),
      ...layout,
    };
    n += await queueFor(db, printers, 'order_receipt', `order:${t.id}`, receipt);
  }
  return n;
}

export interface KitchenTicketPrint {
  readonly id: string;
  readonly station_id: string;
  readonly location_id: string;
  readonly order_no: string;
  readonly at: Date;
  /** A scheduled order's due time, printed under the ticket's heading. */
  readonly due_at?: Date | null;
  readonly lines: readonly { qty: number; name: string; modifiers?: unknown }[];
  /** What caused the print when not the ticket itself (`ticket:<id>`): a withdrawn ticket's VOID is `void:<id>`. */
  readonly source_key?: string;
  /** Printed under the lines (why a VOID was sent). */
  readonly note?: string;
}

/** The kitchen printers of these stations (read before their tickets are written: see `queueKitchenTickets`). */
export async function kitchenPrinters(db: Db, stationIds: readonly string[]): Promise<KitchenPrinters> {
  return printersOf(db, { stationIds, role: 'kitchen' });
}
export type KitchenPrinters = Printers;

/** A kitchen ticket on the printers of its station (`ticket:<id>`), in the ticket's transaction. */
export async function queueKitchenTicket(db: Db, ticket: KitchenTicketPrint): Promise<number> {
  return queueKitchenTickets(db, [ticket]);
}

/**
 * Kitchen tickets on the printers of their stations (`ticket:<id>`), in the tickets' transaction. One
 * statement finds the printers of all the stations (unless given: `kitchenPrinters`); only the tickets of stations that have some go
 * further (station names and time zones read once, then each ticket queued).
 */
export async function queueKitchenTickets(db: Db, tickets: readonly KitchenTicketPrint[], printers?: KitchenPrinters): Promise<number> {
  if (!tickets.length) return 0;
  const printersAt = groupPrinters(printers ?? (await kitchenPrinters(db, [...new Set(tickets.map((t) => t.station_id))])), 'station_id');
  const printed = tickets.filter((t) => printersAt.has(t.station_id));
  if (!printed.length) return 0;
  const stations = await db.selectFrom('kitchen_stations').select(['id', 'name']).where('id', 'in', [...new Set(printed.map((t) => t.station_id))]).execute();
  const locations = await db.selectFrom('locations').select(['id', 'timezone']).where('id', 'in', [...new Set(printed.map((t) => t.location_id))]).execute();
  const nameOf = new Map(stations.map((s) => [s.id, s.name]));
  const zoneOf = new Map(locations.map((l) => [l.id, l.timezone]));
  let n = 0;
  for (const t of printed) {
    n += await queueFor(db, printersAt.get(t.station_id)!, 'kitchen_ticket', t.source_key ?? `ticket:${t.id}`, {
      kind: 'kitchen',
      station: nameOf.get(t.station_id) ?? 'Kitchen',
      order_no: t.order_no,
      date: printedDate(t.at, zoneOf.get(t.location_id) ?? 'UTC'),
      ...(t.due_at ? { due: printedDate(t.due_at, zoneOf.get(t.location_id) ?? 'UTC') } : {}),
      lines: t.lines.map((l) => ({ qty: l.qty, name: l.name, modifiers: lineModifierNames(l.modifiers) })),
      ...(t.note ? { note: t.note } : {}),
    });
  }
  return n;
}

function reportSectionsOf(sections: Record<string, unknown>): { title: string; rows: [string, string][] }[] {
  const turnover = (sections.turnover_x ?? sections.turnover_z) as TurnoverMajor | undefined;
  const users = (sections.user_x ?? sections.user_z) as UserTurnoverMajor[] | undefined;
  if (turnover || users) {
    const head: [string, string][] = [];
    if (sections.business_date) head.push(['Business date', String(sections.business_date)]);
    return [...(head.length ? [{ title: 'Day', rows: head }] : []), ...turnoverSections(turnover, users)];
  }
  return Object.entries(sections).map(([title, v]) => ({ title: title.replace(/_/g, ' '), rows: reportRows(v) }));
}

/** Report values flattened to printable rows (`turnover.cash: 12.50`). */
export function reportRows(value: unknown, prefix = '', depth = 0): [string, string][] {
  if (value === null || value === undefined) return [];
  if (typeof value !== 'object') return [[prefix || 'value', String(value)]];
  if (depth > 4) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i + 1), v] as const) : Object.entries(value as Record<string, unknown>);
  return entries.flatMap(([k, v]) => reportRows(v, prefix ? `${prefix} ${k}` : k, depth + 1));
}

interface TurnoverMajor {
  sales_count: number;
  refunds_count: number;
  gross: number;
  refunds: number;
  net: number;
  by_vat_rate?: { rate: number; net: number; vat: number; gross: number }[];
  by_tender?: { label: string; amount: number; count: number }[];
}
interface UserTurnoverMajor extends TurnoverMajor {
  name: string;
}
const money = (major: number) => Number(major).toFixed(2);

/** The sections of an X or Z report (`{turnover_x|turnover_z, user_x|user_z}`, decimal major units). */
export function turnoverSections(turnover: TurnoverMajor | undefined, users: readonly UserTurnoverMajor[] | undefined): { title: string; rows: [string, string][] }[] {
  const out: { title: string; rows: [string, string][] }[] = [];
  if (turnover) {
    out.push({
      title: 'Turnover',
      rows: [
        ['Sales', String(turnover.sales_count)],
        ['Refunds', String(turnover.refunds_count)],
        ['Gross', money(turnover.gross)],
        ['Refunded', money(turnover.refunds)],
        ['Net', money(turnover.net)],
      ],
    });
    if (turnover.by_vat_rate?.length) out.push({ title: 'VAT', rows: turnover.by_vat_rate.map((v): [string, string] => [`${v.rate}%  net ${money(v.net)}  vat ${money(v.vat)}`, money(v.gross)]) });
    if (turnover.by_tender?.length) out.push({ title: 'Tenders', rows: turnover.by_tender.map((t): [string, string] => [`${t.label} (${t.count})`, money(t.amount)]) });
  }
  for (const u of users ?? []) out.push({ title: u.name, rows: [['Sales', String(u.sales_count)], ['Refunds', String(u.refunds_count)], ['Net', money(u.net)]] });
  return out;
}

/** An X or Z report on the location's receipt printers; a Z prints once per day (`z:<day id>`), every X request prints. */
export async function queueReport(db: Db, input: { locationId: string; title: string; sourceKey: string | null; sections: Record<string, unknown>; at: Date }): Promise<number> {
  const printers = await printersOf(db, { locationIds: [input.locationId], role: 'receipt' });
  if (!printers.length) return 0;
  const { header, timezone } = await headerOf(db, input.locationId);
  return queueFor(db, printers, 'report', input.sourceKey, {
    kind: 'report',
    title: input.title,
    header,
    date: printedDate(input.at, timezone),
    sections: reportSectionsOf(input.sections),
  });
}

/** A kiosk's test print: on every receipt printer of its location. */
export async function queueLocationTestPrint(db: Db, locationId: string, who: string, now: Date): Promise<number> {
  const printers = await printersOf(db, { locationIds: [locationId], role: 'receipt' });
  if (!printers.length) return 0;
  const { timezone } = await headerOf(db, locationId);
  return queueFor(db, printers, 'test', null, { kind: 'test', printer: who, date: printedDate(now, timezone) });
}
