import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { toFdmData, verifyPayloadSignature, type FiscalEvent, type SaleEvent, type SignResult } from '@pos/fiscal';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { AppError } from '@pos/kernel';
import { counterValue, SEQ_LABEL, TOTAL_LABEL } from './counter-store.ts';
import { exportJournal } from './export-journal.ts';
import { createFiscalService, type FiscalService } from './fiscal-service.ts';
import { findJournalEntry } from './find-journal-entry.ts';
import { recoverPendingEntries } from './recover-pending.ts';
import { cashSale, openFiscalTestTenant, saleInput, TEST_FISCAL_CONFIG, type FiscalTestTenant } from './test-support.ts';

// The remote flow against the FDM simulator over real HTTP. One simulator per fiscal device: the
// client posts to `{base}/{fdmId}/graphql`, so the simulator's deviceId is the fdm id.

let t: FiscalTestTenant;
const sims: FdmSimulator[] = [];
const SECRET = 'remote-shared-secret';

beforeAll(async () => {
  t = await openFiscalTestTenant('remote');
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  await t.close();
});

/** A location enrolled in remote mode, its simulator and a service configured for it. */
async function remoteSetup(opts: { secret?: string } = {}) {
  const loc = await t.addLocation();
  const fdmId = `RFDM-${crypto.randomUUID().slice(0, 8)}`;
  await t.enrol(loc, 'remote', fdmId);
  const sim = startFdmSimulator({ deviceId: fdmId, sharedSecret: SECRET });
  sims.push(sim);
  const fiscal: FiscalService = createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: sim.url, secrets: { [fdmId]: opts.secret ?? SECRET } } }, t.log);
  return { loc, fdmId, sim, fiscal };
}

const journal = (fdmId: string) => t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq').execute();
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as AppError);

describe('remote fiscal data module', () => {
  test('pending entry, module call outside the transaction, entry completed as signed', async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    const orderId = crypto.randomUUID();
    const signed = await fiscal.signEvent(t.tdb, saleInput(loc, orderId, 1250));
    expect(signed).toMatchObject({ fdm_id: fdmId, seq: 1, subject: { type: 'pos_order', id: orderId } });
    expect(signed.result.fdmRef).toMatchObject({ fdmId: `SIM-${fdmId}`, eventLabel: 'N', eventCounter: 1, totalCounter: 1 });
    expect(signed.result.shortSignature).toMatch(/^[A-Z2-7]{8}$/);
    expect(signed.result.verificationUrl).toStartWith(sim.url);
    expect((signed.event as SaleEvent).transaction.total).toBe(1250);
    expect(sim.signedCount).toBe(1);

    const again = await fiscal.signEvent(t.tdb, { ...saleInput(loc), build: (c) => cashSale(c, 300) });
    expect(again.seq).toBe(2);
    expect(again.result.fdmRef.totalCounter).toBe(2);

    const rows = await journal(fdmId);
    expect(rows.map((r) => [Number(r.seq), r.status])).toEqual([
      [1, 'signed'],
      [2, 'signed'],
    ]);
    expect(rows[0]!.completed_at).not.toBeNull();
    // The remote module's counters are its own: only the journal head is counted here.
    expect(await counterValue(t.tdb, fdmId, SEQ_LABEL)).toBe(2);
    expect(await counterValue(t.tdb, fdmId, TOTAL_LABEL)).toBe(0);
    const [device] = await exportJournal(t.tdb, { locationId: loc }, fiscal);
    expect(device!.verification).toEqual({ ok: true, count: 2, pending: 0, failed: 0, last_seq: 2 });
    expect(device!.mode).toBe('remote');
  });

  test('outage: the entry stays pending (503), recovery completes it once the module answers', async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    const orderId = crypto.randomUUID();
    sim.simulateOutage(1);
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc, orderId)));
    expect(e).toBeInstanceOf(AppError);
    expect([e!.status, e!.reason, e!.message]).toEqual([503, 'fiscal_unreachable', 'The fiscal data module is unreachable; the sale is kept and will be signed when it answers.']);
    expect(sim.signedCount).toBe(0);
    expect((await journal(fdmId)).map((r) => r.status)).toEqual(['pending']);
    expect((await findJournalEntry(t.tdb, { type: 'pos_order', id: orderId }))?.status).toBe('pending');

    // A live journal with a pending entry still verifies (pending allowed by default).
    expect((await exportJournal(t.tdb, { locationId: loc }, fiscal))[0]!.verification).toMatchObject({ ok: true, pending: 1 });

    // Entries younger than the recovery age are left to the in-flight call.
    expect(await recoverPendingEntries(t.tdb, fiscal)).toMatchObject({ signed: 0, pending: 0 });

    const signedHooks: string[] = [];
    const summary = await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0, hooks: { onSigned: async (_tdb, s) => void signedHooks.push(s.subject!.id) } });
    expect(summary).toMatchObject({ signed: 1, failed: 0, pending: 0 });
    expect(signedHooks).toEqual([orderId]);
    expect(sim.signedCount).toBe(1);
    const rows = await journal(fdmId);
    expect(rows.map((r) => r.status)).toEqual(['signed']);
    expect(JSON.parse(rows[0]!.sign_result!).fdmRef.totalCounter).toBe(1);
    expect((await exportJournal(t.tdb, { locationId: loc }, fiscal))[0]!.verification).toEqual({ ok: true, count: 1, pending: 0, failed: 0, last_seq: 1 });

    // Nothing left: a second run does nothing.
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 0, failed: 0, pending: 0 });
  });

  test('lost response: recovery completes the entry without the module counting twice', async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    sim.simulateLostResponse(1);
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect(e!.reason).toBe('fiscal_unreachable');
    expect(sim.signedCount).toBe(1); // the module signed and counted; we never saw the answer

    // Later events can be journaled while the earlier one waits; sends go in journal order, so the
    // next send first re-sends the waiting entry (replayed by the module), then its own.
    const next = await fiscal.signEvent(t.tdb, saleInput(loc));
    expect(next.seq).toBe(2);
    expect(next.result.fdmRef.totalCounter).toBe(2);

    const summary = await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 });
    expect(summary).toMatchObject({ signed: 0, pending: 0 });
    expect(sim.signedCount).toBe(2); // replayed, not counted again
    const rows = await journal(fdmId);
    expect(rows.map((r) => [Number(r.seq), r.status, JSON.parse(r.sign_result!).fdmRef.totalCounter])).toEqual([
      [1, 'signed', 1],
      [2, 'signed', 2],
    ]);
    // The recovered answer is the module's signature over exactly the stored event's wire data.
    const stored = JSON.parse(rows[0]!.payload) as FiscalEvent;
    const wire = JSON.parse(JSON.stringify({ operation: 'signSale', isTraining: false, data: toFdmData(stored) }));
    expect(verifyPayloadSignature(sim.publicKeyPem, wire, JSON.parse(rows[0]!.sign_result!) as SignResult)).toBe(true);
    expect((await exportJournal(t.tdb, { locationId: loc }, fiscal))[0]!.verification).toEqual({ ok: true, count: 2, pending: 0, failed: 0, last_seq: 2 });
  });

  test('completePending on a client retry: same outcome as recovery, idempotent', async () => {
    const { loc, sim, fiscal } = await remoteSetup();
    const orderId = crypto.randomUUID();
    sim.simulateOutage(1);
    await failure(fiscal.signEvent(t.tdb, saleInput(loc, orderId)));
    const state = await findJournalEntry(t.tdb, { type: 'pos_order', id: orderId });
    const [a, b] = await Promise.all([fiscal.completePending(t.tdb, state!.journal_id), fiscal.completePending(t.tdb, state!.journal_id)]);
    expect(a.status).toBe('signed');
    expect(b.status).toBe('signed');
    if (a.status === 'signed' && b.status === 'signed') expect(b.signed.result).toEqual(a.signed.result);
    expect(sim.signedCount).toBe(1);
  });

  test('a refusal marks the entry failed (422) and the chain goes on', async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    const e = await failure(fiscal.signEvent(t.tdb, { ...saleInput(loc), employeeId: ' ' })); // the module requires an employee id
    expect(e).toBeInstanceOf(AppError);
    expect([e!.status, e!.reason]).toEqual([422, 'fiscal_refused']);
    expect(e!.extra).toEqual({ fiscal_error: { code: 'INVALID_REQUEST', sub_code: 'employeeId' } });
    expect(sim.signedCount).toBe(0);
    const rows = await journal(fdmId);
    expect(rows.map((r) => r.status)).toEqual(['failed']);
    expect(JSON.parse(rows[0]!.sign_result!)).toMatchObject({ code: 'INVALID_REQUEST', sub_code: 'employeeId', status: 200 });

    const ok = await fiscal.signEvent(t.tdb, saleInput(loc));
    expect(ok.seq).toBe(2);
    expect(ok.result.fdmRef.totalCounter).toBe(1);
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 0, failed: 0, pending: 0 });
    const [device] = await exportJournal(t.tdb, { locationId: loc }, fiscal);
    expect(device!.verification).toEqual({ ok: true, count: 2, pending: 0, failed: 1, last_seq: 2 });
    expect(device!.entries[0]).toMatchObject({ status: 'failed', sign_result: null, sign_error: { code: 'INVALID_REQUEST' } });

    // The refusal is bound to its entry.
    await t.tdb.updateTable('fiscal_journal').set({ sign_result: JSON.stringify({ code: 'OTHER', message: 'x', status: 200 }) }).where('fdm_id', '=', fdmId).where('seq', '=', 1).execute();
    expect((await exportJournal(t.tdb, { locationId: loc }, fiscal))[0]!.verification).toMatchObject({ ok: false, seq: 1, problem: 'altered' });
    // ... and re-forging its refusal hash too is caught by the result seal.
    const { failureHash } = await import('./journal-rows.ts');
    const forged = { code: 'OTHER', message: 'x', status: 200 };
    await t.tdb.updateTable('fiscal_journal').set({ sign_result: JSON.stringify(forged), result_hash: failureHash(rows[0]!.hash, forged) }).where('fdm_id', '=', fdmId).where('seq', '=', 1).execute();
    expect((await exportJournal(t.tdb, { locationId: loc }, fiscal))[0]!.verification).toMatchObject({ ok: false, seq: 1, problem: 'bad_seal' });
  });

  test('wrong shared secret: refused (401) and failed', async () => {
    const { loc, fdmId, fiscal } = await remoteSetup({ secret: 'not-the-secret' });
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason]).toEqual([422, 'fiscal_refused']);
    expect(e!.extra).toEqual({ fiscal_error: { code: 'UNAUTHORIZED', sub_code: 'Authorization' } });
    expect((await journal(fdmId)).map((r) => r.status)).toEqual(['failed']);
  });

  test('recovery: a refusal on re-send marks the entry failed and calls onFailed', async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    const orderId = crypto.randomUUID();
    sim.simulateOutage(1);
    await failure(fiscal.signEvent(t.tdb, saleInput(loc, orderId)));
    const refusing = createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: sim.url, secrets: { [fdmId]: 'rotated-wrongly' } } }, t.log);
    const failedHooks: unknown[] = [];
    const summary = await recoverPendingEntries(t.tdb, refusing, { olderThanMs: 0, hooks: { onFailed: async (_tdb, f) => void failedHooks.push(f.subject) } });
    expect(summary).toMatchObject({ signed: 0, failed: 1, pending: 0 });
    expect(failedHooks).toEqual([{ type: 'pos_order', id: orderId }]);
    expect((await journal(fdmId)).map((r) => r.status)).toEqual(['failed']);
    expect(sim.signedCount).toBe(0);
  });

  test("recovery: an unreachable module keeps that device's later entries for the next run", async () => {
    const { loc, fdmId, sim, fiscal } = await remoteSetup();
    sim.simulateOutage(2);
    await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    sim.simulateOutage(1);
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 0, pending: 2 });
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 2, pending: 0 });
    expect((await journal(fdmId)).map((r) => JSON.parse(r.sign_result!).fdmRef.totalCounter)).toEqual([1, 2]);
  });

  test('recovery takes the devices in turn: a backlog of one device that stays pending does not keep another device from recovery', async () => {
    // Device A sorts first and its module stays unreachable; B's module is back.
    const tag = crypto.randomUUID().slice(0, 8);
    const [locA, locB] = [await t.addLocation(), await t.addLocation()];
    const [fdmA, fdmB] = [`RFDM-A-${tag}`, `RFDM-B-${tag}`];
    await t.enrol(locA, 'remote', fdmA);
    await t.enrol(locB, 'remote', fdmB);
    const [simA, simB] = [startFdmSimulator({ deviceId: fdmA, sharedSecret: SECRET }), startFdmSimulator({ deviceId: fdmB, sharedSecret: SECRET })];
    sims.push(simA, simB);
    const fiscalA = createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: simA.url, secrets: { [fdmA]: SECRET } } }, t.log);
    const fiscalB = createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: simB.url, secrets: { [fdmB]: SECRET } } }, t.log);
    simA.simulateOutage(100);
    simB.simulateOutage(1);
    for (let i = 0; i < 3; i++) await failure(fiscalA.signEvent(t.tdb, saleInput(locA)));
    await failure(fiscalB.signEvent(t.tdb, saleInput(locB)));
    // The recovery run reaching B (A's secret is not configured there: A's entries stay pending).
    const run = await recoverPendingEntries(t.tdb, fiscalB, { olderThanMs: 0, limit: 3 });
    // Before: the three entries taken were A's (ordered by device), and B's waited for ever.
    expect(run).toMatchObject({ signed: 1 });
    expect((await journal(fdmB)).map((r) => r.status)).toEqual(['signed']);
    expect((await journal(fdmA)).map((r) => r.status)).toEqual(['pending', 'pending', 'pending']);
  });

  test('remote device without a configured secret: 503 before anything is journaled', async () => {
    const loc = await t.addLocation();
    const fdmId = await t.enrol(loc, 'remote');
    const fiscal = createFiscalService(TEST_FISCAL_CONFIG, t.log);
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason]).toEqual([503, 'fiscal_not_configured']);
    expect(await journal(fdmId)).toEqual([]);
    await expect(t.tdb.transaction().execute((tx) => fiscal.signEvent(t.tdb, saleInput(loc), { tx }))).rejects.toThrow(/remote module/);
  });
});
