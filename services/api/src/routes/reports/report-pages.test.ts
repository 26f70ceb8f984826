import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, pagedQuery, readInPages } from '@pos/db';
import { turnoverCents } from '@pos/domain/reports/x-report';
import { loadReportInput, turnoverOfWindow } from '@pos/core/reports/report-input';
import { createTestApi } from '../../testing/harness.ts';

/**
 * The sales report's register figures are read a page at a time through a cursor (`turnoverOfWindow`,
 * `readInPages`) instead of loading a whole window's sales into the API: the same figures as the X/Z
 * functions over the same rows loaded at once, whatever the page size.
 */
let api: Awaited<ReturnType<typeof createTestApi>>;
beforeAll(async () => {
  api = await createTestApi();
});
afterAll(async () => {
  await api.close();
});

describe('register turnover read in pages', () => {
  test('equals turnoverCents over the rows loaded at once, for any page size; locations and dates outside the window are left out', async () => {
    const m = await api.seed('report-pages');
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const T = (t: string) => sql.id(m.merchant.tenant_database, t);
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const pos = m.devices.find((d) => d.type === 'pos')!.id;
    // 9 sales over two locations and four dates (one outside the window): cash, card, a split sale with cash
    // rounding, a malformed tender (Unknown); then refunds, one outside the window.
    const tenders = [
      { legs: [{ kind: 'cash', amount: 630 }], rounding: 0 },
      { legs: [{ kind: 'card', amount: 980 }], rounding: 0 },
      { legs: [{ kind: 'card', amount: 500 }, { kind: 'cash', amount: 630 }], rounding: 2 },
      { legs: 'broken' },
    ];
    const sales = Array.from({ length: 9 }, (_, i) => {
      const tender = tenders[i % tenders.length]!;
      const total = i % 4 === 0 ? 630 : i % 4 === 1 ? 980 : i % 4 === 2 ? 1132 : 700;
      return { id: crypto.randomUUID(), loc: i % 3 === 0 ? loc1 : loc0, date: i === 8 ? '2026-04-01' : ['2026-03-01', '2026-03-02', '2026-03-03'][i % 3]!, total, tender };
    });
    for (const s of sales) {
      const vat = [{ rate: 21, net: Math.round((s.total * 100) / 121), vat: s.total - Math.round((s.total * 100) / 121), gross: s.total }];
      await sql`insert into ${T('pos_orders')} (id, location_id, device_id, version, state, fired, lines, totals, tender) values (${s.id}::uuid, ${s.loc}::uuid, ${pos}::uuid, 2, 'SETTLED', true, '[]'::jsonb, ${JSON.stringify({ total: s.total, by_vat_rate: vat, lines: [] })}::jsonb, ${JSON.stringify(s.tender)}::jsonb)`.execute(tdb);
      await sql`insert into ${T('pos_transactions')} (id, order_id, location_id, device_id, total, tender, payment_snapshot, business_date) values (${s.id}::uuid, ${s.id}::uuid, ${s.loc}::uuid, ${pos}::uuid, ${s.total}, ${JSON.stringify(s.tender)}::jsonb, '{}'::jsonb, ${s.date}::date)`.execute(tdb);
    }
    for (const [i, s] of [sales[0]!, sales[1]!, sales[8]!].entries()) {
      await sql`insert into ${T('pos_refunds')} (id, transaction_id, location_id, device_id, staff_id, mode, amount, by_vat_rate, business_date) values (gen_random_uuid(), ${s.id}::uuid, ${s.loc}::uuid, ${pos}::uuid, gen_random_uuid(), 'full', ${s.total}, ${JSON.stringify([{ rate: 21, net: 500 + i, vat: s.total - 500 - i, gross: s.total }])}::jsonb, ${s.date}::date)`.execute(tdb);
    }
    const w = { locationIds: [loc0, loc1], from: '2026-03-01', to: '2026-03-31' };
    const expected = turnoverCents(await loadReportInput(tdb, w));
    expect(expected).toMatchObject({ sales_count: 8, refunds_count: 2 });
    expect(expected.by_tender.find((r) => r.label === 'Unknown')!.count).toBe(2);
    for (const pageRows of [1, 2, 3, 7, 5000]) expect([pageRows, await turnoverOfWindow(tdb, w, pageRows)]).toEqual([pageRows, expected]);
    // One location only; no location at all.
    expect(await turnoverOfWindow(tdb, { ...w, locationIds: [loc1] }, 2)).toEqual(turnoverCents(await loadReportInput(tdb, { ...w, locationIds: [loc1] })));
    expect(await turnoverOfWindow(tdb, { ...w, locationIds: [] }, 2)).toEqual(turnoverCents({ sales: [], refunds: [] }));
  });

  test('readInPages: every row once, in pages of the size asked, queries one after the other; the connection goes back without the cursor or its setting; an error in a page rolls the read back', async () => {
    const db = api.deps.db;
    const pages: number[][] = [];
    const series = (n: number) => db.selectFrom(sql<{ g: number }>`generate_series(1, ${n})`.as('s')).select(sql<number>`s::int`.as('g'));
    await readInPages(db, 4, [
      pagedQuery(series(10), (rows) => void pages.push(rows.map((r) => r.g))),
      pagedQuery(series(3), (rows) => void pages.push(rows.map((r) => r.g))),
    ]);
    expect(pages).toEqual([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10], [1, 2, 3]]);
    await expect(readInPages(db, 2, [pagedQuery(series(5), () => { throw new Error('page refused'); })])).rejects.toThrow('page refused');
    const settings = await Promise.all(Array.from({ length: 5 }, () => sql<{ f: string; cursors: number }>`select current_setting('cursor_tuple_fraction') as f, (select count(*) from pg_cursors)::int as cursors`.execute(db)));
    expect(settings.map((s) => s.rows[0])).toEqual(Array(5).fill({ f: '0.1', cursors: 0 }));
  });
});
