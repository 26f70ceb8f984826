import { sql, type Expression, type SqlBool } from 'kysely';
import type { TenantDb } from '@pos/db';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';
import { isTransactionChannel, type ChannelFigures } from '@pos/domain/reports/sales-channels';
import type { TransactionChannel } from '@pos/domain/payments/transaction-values';
import { utcEnvelope, type ReportScope } from './report-window.ts';

/**
 * The sales of the channels whose orders are transactions (kiosk, online ordering, table QR,
 * marketplace delivery) as the reports count them: `Complete` transactions that are not test-mode,
 * dated by the local date (the location's time zone) they completed on. `gross` leaves the tip out;
 * a free order is a sale of 0.
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
    .where('t.location_id', 'in', scope.locationIds.length ? [...scope.locationIds] : ['00000000-0000-0000-0000-000000000000'])
    .where('t.completed_at', '>=', env.start)
    .where('t.completed_at', '<', env.end)
    .where(localDateBetween(sql.ref('t.completed_at'), scope.from, scope.to));
}

/** `at` as a local date of `loc.timezone`, within `from`..`to` (inclusive). */
function localDateBetween(at: Expression<unknown>, from: string, to: string): Expression<SqlBool> {
  return sql<SqlBool>`(${at} at time zone loc.timezone)::date between ${from}::date and ${to}::date`;
}

/** A JSON number's cents, 0 when the stored value is not a number (read defensively, as `vatGroupsOf`). */
const centsOf = (json: string, key: string) => sql<string>`case when jsonb_typeof(${sql.raw(json)}->${key}) = 'number' then (${sql.raw(json)}->>${key})::numeric else 0 end`;

export async function loadChannelSales(tdb: TenantDb, scope: ReportScope): Promise<ChannelSales> {
  if (scope.locationIds.length === 0) return { byChannel: {}, byVatRate: [] };
  const [channels, vat] = await Promise.all([
    countedTransactions(tdb, scope)
      .select((eb) => ['t.channel', eb.fn.countAll<string>().as('n'), sql<string>`coalesce(sum(t.total - t.tip_amount), 0)`.as('gross'), sql<string>`coalesce(sum(t.tip_amount), 0)`.as('tips')])
      .groupBy('t.channel')
      .execute(),
    countedTransactions(tdb, scope)
      .innerJoin(sql<{ value: unknown }>`jsonb_array_elements(case when jsonb_typeof(t.by_vat_rate) = 'array' then t.by_vat_rate else '[]'::jsonb end)`.as('vg'), (j) => j.onTrue())
      .where(sql<SqlBool>`jsonb_typeof(vg.value->'rate') = 'number'`)
      .select([sql<string>`(vg.value->>'rate')::numeric`.as('rate'), sql<string>`sum(${centsOf('vg.value', 'net')})`.as('net'), sql<string>`sum(${centsOf('vg.value', 'vat')})`.as('vat'), sql<string>`sum(${centsOf('vg.value', 'gross')})`.as('gross')])
      .groupBy(sql`(vg.value->>'rate')::numeric`)
      .execute(),
  ]);
  const byChannel: Partial<Record<TransactionChannel, ChannelFigures>> = {};
  for (const c of channels) {
    if (!isTransactionChannel(c.channel)) continue;
    byChannel[c.channel] = { sales_count: Number(c.n), refunds_count: 0, gross: Number(c.gross), refunds: 0, tips: Number(c.tips) };
  }
  return { byChannel, byVatRate: vat.map((v) => ({ rate: Number(v.rate), net: Number(v.net), vat: Number(v.vat), gross: Number(v.gross) })) };
}
