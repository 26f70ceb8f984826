import { describe, expect, test } from 'bun:test';
import { channelRows, mergeVatRates, SALES_CHANNELS, totalsOf } from './sales-channels.ts';

describe('channelRows and totalsOf', () => {
  test('every channel in order, zeros where nothing sold; net = gross - refunds; totals add the rows', () => {
    const rows = channelRows({ kiosk: { sales_count: 2, refunds_count: 0, gross: 900, refunds: 0, tips: 40, fees: 0 }, delivery: { sales_count: 1, refunds_count: 0, gross: 1000, refunds: 0, tips: 0, fees: 250 }, register: { sales_count: 3, refunds_count: 1, gross: 1500, refunds: 200, tips: 0, fees: 0 } });
    expect(rows.map((r) => r.channel)).toEqual([...SALES_CHANNELS]);
    expect(rows[0]).toEqual({ channel: 'register', sales_count: 3, refunds_count: 1, gross: 1500, refunds: 200, net: 1300, tips: 0, fees: 0 });
    expect(rows[1]).toEqual({ channel: 'kiosk', sales_count: 2, refunds_count: 0, gross: 900, refunds: 0, net: 900, tips: 40, fees: 0 });
    expect(rows[3]).toEqual({ channel: 'table_qr', sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 });
    expect(rows[4]).toEqual({ channel: 'delivery', sales_count: 1, refunds_count: 0, gross: 1000, refunds: 0, net: 1000, tips: 0, fees: 250 });
    expect(totalsOf(rows)).toEqual({ sales_count: 6, refunds_count: 1, gross: 3400, refunds: 200, net: 3200, tips: 40, fees: 250 });
    expect(totalsOf(channelRows({}))).toEqual({ sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 });
  });
});

describe('mergeVatRates', () => {
  test('adds per rate, rate descending, a rate that cancels out stays at zero', () => {
    expect(
      mergeVatRates(
        [{ rate: 6, net: 208, vat: 12, gross: 220 }, { rate: 21, net: 463, vat: 97, gross: 560 }],
        [{ rate: 6, net: -208, vat: -12, gross: -220 }],
        [{ rate: 5.5, net: 95, vat: 5, gross: 100 }, { rate: 21, net: 231, vat: 49, gross: 280 }],
      ),
    ).toEqual([
      { rate: 21, net: 694, vat: 146, gross: 840 },
      { rate: 6, net: 0, vat: 0, gross: 0 },
      { rate: 5.5, net: 95, vat: 5, gross: 100 },
    ]);
    expect(mergeVatRates()).toEqual([]);
  });
});
