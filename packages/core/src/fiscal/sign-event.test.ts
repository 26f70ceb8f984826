import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { verifySignature, type FiscalEvent, type SaleEvent } from '@pos/fiscal';
import { AppError, ManualClock } from '@pos/kernel';
import type { TenantTx } from '@pos/db';
import { counterValue, SEQ_LABEL, ticketLabel, TOTAL_LABEL } from './counter-store.ts';
import { exportJournal, hasFiscalHistory } from './export-journal.ts';
import { createFiscalService, type FiscalService } from './fiscal-service.ts';
import { findJournalEntry } from './find-journal-entry.ts';
import { cashSale, openFiscalTestTenant, saleInput, TEST_FISCAL_CONFIG, type FiscalTestTenant } from './test-support.ts';

let t: FiscalTestTenant;
let fiscal: FiscalService;
const clock = new ManualClock(new Date('2026-07-01T22:30:00.000Z')); // 00:30 on 2 July in Brussels

beforeAll(async () => {
  t = await openFiscalTestTenant('sign');
  fiscal = createFiscalService(TEST_FISCAL_CONFIG, t.log, { clock });
});
afterAll(async () => {
  await t.close();
});

const inTx = <T>(work: (tx: TenantTx) => Promise<T>) => t.tdb.transaction().execute(work);

describe('software signing in the caller transaction', () => {
  test('appends a signed, chained entry and reserves the counters', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'software');
    const orderId = crypto.randomUUID();

    const first = await inTx((tx) => fiscal.signInTransaction(tx, saleInput(loc, orderId)));
    expect(first).toMatchObject({ fdm_id: fdmId, seq: 1, subject: { type: 'pos_order', id: orderId } });
    expect(first.result.fdmRef).toMatchObject({ fdmId, eventLabel: 'N', eventCounter: 1, totalCounter: 1 });
    expect(first.result.shortSignature).toMatch(/^[A-Z2-7]{8}$/);
    const sale = first.event as SaleEvent;
    expect(sale).toMatchObject({
      kind: 'sale',
      vatNo: 'BE0123456749',
      estNo: '2000000042',
      posId: 'POS-DEVICE-1',
      deviceId: 'POS-DEVICE-1',
      terminalId: 'POS-DEVICE-1',
      posFiscalTicketNo: 1,
      posDateTime: '2026-07-01T22:30:00.000Z',
      bookingDate: '2026-07-02',
      employeeId: 'staff-1',
      language: 'NL',
      isTraining: false,
      ticketMedium: 'PAPER',
    });
    expect(sale.bookingPeriodId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(verifySignature(fiscal.publicKeyFor(fdmId), first.event, first.result)).toBe(true);

    const workIn = await fiscal.signEvent(t.tdb, {
      locationId: loc,
      deviceId: 'POS-DEVICE-1',
      employeeId: 'staff-1',
      subject: { type: 'staff_session', id: 's-1' },
      businessDay: { id: '0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506', date: '2026-07-01' },
      build: (c): FiscalEvent => ({ ...c, kind: 'work_in' }),
    });
    expect(workIn.seq).toBe(2);
    expect(workIn.result.fdmRef).toMatchObject({ eventLabel: 'S', eventCounter: 1, totalCounter: 2 });
    expect(workIn.event).toMatchObject({ posFiscalTicketNo: 2, bookingDate: '2026-07-01', bookingPeriodId: '0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506' });

    const rows = await t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq').execute();
    expect(rows.map((r) => [Number(r.seq), r.status, r.event_kind])).toEqual([
      [1, 'signed', 'sale'],
      [2, 'signed', 'work_in'],
    ]);
    expect(rows[1]!.prev_hash).toBe(rows[0]!.hash);
    expect(rows[0]!.id).toBe(first.journal_id);
    expect(rows[0]!.created_at.toISOString()).toBe('2026-07-01T22:30:00.000Z');
    expect(await counterValue(t.tdb, fdmId, SEQ_LABEL)).toBe(2);
    expect(await counterValue(t.tdb, fdmId, TOTAL_LABEL)).toBe(2);
    expect(await counterValue(t.tdb, fdmId, 'N')).toBe(1);
    expect(await counterValue(t.tdb, fdmId, 'S')).toBe(1);
    expect(await counterValue(t.tdb, fdmId, ticketLabel('POS-DEVICE-1'))).toBe(2);

    const [device] = await exportJournal(t.tdb, { locationId: loc }, fiscal);
    expect(device!.verification).toEqual({ ok: true, count: 2, pending: 0, failed: 0, last_seq: 2 });
    expect(await hasFiscalHistory(t.tdb, loc)).toBe(true);
    expect(await findJournalEntry(t.tdb, { type: 'pos_order', id: orderId })).toMatchObject({ journal_id: first.journal_id, status: 'signed', seq: 1 });
  });

  test('concurrent signers of one device serialise: seq 1..n, no duplicate, no gap, valid chain', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'software');
    const n = 8;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        inTx(async (tx) => {
          const signed = await fiscal.signInTransaction(tx, { ...saleInput(loc), deviceId: `POS-${i % 2}` });
          await Bun.sleep(5); // hold the head lock a little while others wait
          return signed;
        }),
      ),
    );
    expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(new Set(results.map((r) => r.result.fdmRef.totalCounter)).size).toBe(n);
    const tickets = (pos: string) => results.filter((r) => r.event.posId === pos).map((r) => r.event.posFiscalTicketNo).sort((a, b) => a - b);
    expect(tickets('POS-0')).toEqual([1, 2, 3, 4]);
    expect(tickets('POS-1')).toEqual([1, 2, 3, 4]);
    const [device] = await exportJournal(t.tdb, { locationId: loc }, fiscal);
    expect(device!.verification).toEqual({ ok: true, count: n, pending: 0, failed: 0, last_seq: n });
  });

  test('a rolled-back transaction leaves neither an entry nor a consumed counter', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'software');
    await inTx((tx) => fiscal.signInTransaction(tx, saleInput(loc)));
    const boom = new Error('state change failed');
    await expect(
      inTx(async (tx) => {
        await fiscal.signInTransaction(tx, saleInput(loc));
        throw boom;
      }),
    ).rejects.toBe(boom);
    const rows = await t.tdb.selectFrom('fiscal_journal').select('seq').where('fdm_id', '=', fdmId).execute();
    expect(rows.map((r) => Number(r.seq))).toEqual([1]);
    for (const label of [SEQ_LABEL, TOTAL_LABEL, 'N', ticketLabel('POS-DEVICE-1')]) expect(await counterValue(t.tdb, fdmId, label)).toBe(1);
    const next = await inTx((tx) => fiscal.signInTransaction(tx, saleInput(loc)));
    expect(next.seq).toBe(2);
    expect(next.result.fdmRef.totalCounter).toBe(2);
    expect(next.event.posFiscalTicketNo).toBe(2);
  });

  test('no active enrolment: 422 fiscal_not_enrolled; missing VAT number: 422 fiscal_identity_missing', async () => {
    const loc = await t.addLocation();
    const refusal = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as AppError);
    const e1 = await refusal(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect(e1).toBeInstanceOf(AppError);
    expect([e1!.status, e1!.message, e1!.reason]).toEqual([422, 'This location has no active fiscal data module.', 'fiscal_not_enrolled']);
    const e2 = await refusal(inTx((tx) => fiscal.signInTransaction(tx, saleInput(loc))));
    expect(e2!.reason).toBe('fiscal_not_enrolled');
    expect(await hasFiscalHistory(t.tdb, loc)).toBe(false);

    const bare = await t.addLocation({ vat_no: null });
    await t.enrol(bare, 'software');
    const e3 = await refusal(fiscal.signEvent(t.tdb, saleInput(bare)));
    expect([e3!.status, e3!.reason]).toEqual([422, 'fiscal_identity_missing']);
  });

  test('a retired enrolment stops signing; its history stays', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'software');
    await fiscal.signEvent(t.tdb, saleInput(loc));
    await t.tdb.updateTable('fdm_devices').set({ status: 'retired', retired_at: new Date() }).where('fdm_id', '=', fdmId).execute();
    await expect(fiscal.signEvent(t.tdb, saleInput(loc))).rejects.toMatchObject({ reason: 'fiscal_not_enrolled' });
    expect(await hasFiscalHistory(t.tdb, loc)).toBe(true);
    const [device] = await exportJournal(t.tdb, { locationId: loc }, fiscal);
    expect(device).toMatchObject({ fdm_id: fdmId, status: 'retired', mode: 'software', verification: { ok: true, count: 1 } });
  });

  test('signEvent with the caller transaction commits with the caller state', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'software');
    const built: number[] = [];
    const signed = await inTx(async (tx) => {
      const s = await fiscal.signEvent(t.tdb, { ...saleInput(loc), build: (c) => (built.push(c.posFiscalTicketNo), cashSale(c, 1250)) }, { tx });
      await tx.updateTable('locations').set({ name: 'Settled here' }).where('id', '=', loc).execute();
      return s;
    });
    expect(built).toEqual([1]);
    expect(signed.fdm_id).toBe(fdmId);
    expect((signed.event as SaleEvent).transaction.total).toBe(1250);
  });
});
