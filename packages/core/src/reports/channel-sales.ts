import { sql, type Expression, type SqlBool } from 'kysely';
import { cancelledMarketplaceOrder } from '../payments/counted-sale.ts';
import type { TenantDb } from '@pos/db';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';
import { isTransactionChannel, type ChannelFigures } from '@pos/domain/reports/sales-channels';
import type { TransactionChannel } from '@pos/domain/payments/transaction-values';
import { utcEnvelope, type ReportScope } from './report-window.ts';

/**
 * The sales of the channels whose orders are transactions (kiosk, online ordering, table QR,
 * marketplace delivery) as the reports count them: `Complete` transactions that are not test-mode,
 * dated by the local date (the location's time zone) they completed on; a marketplace order the
 * marketplace cancelled after paying is no sale (its money is the marketplace's to give back). `gross`
 * is what the goods sold for (`total - tip_amount - fees`: subtotal less discounts), what the VAT groups
 * cover; tips and fees are their own figures; a free order is a sale of 0.
 */
export interface ChannelSales {
  readonly byChannel: Partial<Record<TransactionChannel, ChannelFigures>>;
  readonly byVatRate: VatRateTotal[];
}

/** The `transactions as t` rows the reports count, joined to `locations as loc` for the time zone. */
export function countedTransactions(tdb: TenantDb, scope: ReportScope) {
  const env = utcEnvelope(scope.from, scope.to);
  return tdb
    .selectFrom('transactions as t')
    .innerJoin('locations as loc', 'loc.id', 't.location_id')
    .where('t.status', '=', 'Complete')
    .where('t.is_test', '=', false)
    .where(sql<boolean>`not ${cancelledMarketplaceOrder('t')}`)
    .where('t.location_id', 'in', scope.locationIds.length ? [...scope.locationIds] : ['00000000-0000-0000-0000-000000000000'])
    .where('t.completed_at', '>=', env.start)
    .where('t.completed_at', '<', env.end)
    .where(localDateBetween(sql.ref('t.completed_at'), scope.from, scope.to));
}

/** `at` as a local date of `loc.timezone`, within `from`..`to` (inclusive). */
function localDateBetween(at: Expression<unknown>, from: string, to: string): Expression<SqlBool> {
  return sql<SqlBool>`(${at} at time zone loc.timezone)::date between ${from}::date and ${to}::date`;
}

/**
 * The channel a transaction is reported under: the column. A table QR order is stored on channel
 * `table_qr` (migration tenant 540 moved the older ones, stored on `online_ordering` and marked only
 * by `payment_snapshot.channel` `table_qr`); the snapshot is still read so such a row counts as `table_qr`.
 */
export const reportChannel = sql<TransactionChannel>`case when t.payment_snapshot->>'channel' = 'table_qr' then 'table_qr' else t.channel end`;

/** `vg.value->key` is a whole number (cents): a group with any other figure is skipped, as `vatGroupsOf` does. */
const isCents = (key: string) => sql<SqlBool>`jsonb_typeof(vg.value->${key}) = 'number' and (vg.value->>${key})::numeric % 1 = 0`;
const cents = (key: string) => sql<string>`(vg.value->>${key})::numeric`;

export async function loadChannelSales(tdb: TenantDb, scope: ReportScope): Promise<ChannelSales> {
  if (scope.locationIds.length === 0) return { byChannel: {}, byVatRate: [] };
  const [channels, vat] = await Promise.all([
    countedTransactions(tdb, scope)
      .select((eb) => [reportChannel.as('channel'), eb.fn.countAll<string>().as('n'), sql<string>`coalesce(sum(t.total - t.tip_amount - t.fees), 0)`.as('gross'), sql<string>`coalesce(sum(t.tip_amount), 0)`.as('tips'), sql<string>`coalesce(sum(t.fees), 0)`.as('fees')])
      .groupBy(reportChannel)
      .execute(),
    countedTransactions(tdb, scope)
      .innerJoin(sql<{ value: unknown }>`jsonb_array_elements(case when jsonb_typeof(t.by_vat_rate) = 'array' then t.by_vat_rate else '[]'::jsonb end)`.as('vg'), (j) => j.onTrue())
      .where(sql<SqlBool>`jsonb_typeof(vg.value->'rate') = 'number'`)
      .where(isCents('net'))
      .where(isCents('vat'))
      .where(isCents('gross'))
      .select([sql<string>`(vg.value->>'rate')::numeric`.as('rate'), sql<string>`sum(${cents('net')})`.as('net'), sql<string>`sum(${cents('vat')})`.as('vat'), sql<string>`sum(${cents('gross')})`.as('gross')])
      .groupBy(sql`(vg.value->>'rate')::numeric`)
      .execute(),
  ]);
  const byChannel: Partial<Record<TransactionChannel, ChannelFigures>> = {};
  for (const c of channels) {
    if (!isTransactionChannel(c.channel)) continue;
    byChannel[c.channel] = { sales_count: Number(c.n), refunds_count: 0, gross: Number(c.gross), refunds: 0, tips: Number(c.tips), fees: Number(c.fees) };
  }
  return { byChannel, byVatRate: vat.map((v) => ({ rate: Number(v.rate), net: Number(v.net), vat: Number(v.vat), gross: Number(v.gross) })) };
}
