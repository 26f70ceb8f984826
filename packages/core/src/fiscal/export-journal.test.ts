import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { canonicalJson, type SignResult } from '@pos/fiscal';
import { exportJournal, fiscalExportTooLarge, locationsWithFiscalHistory, verifyDeviceRows, type DeviceJournal } from './export-journal.ts';
import { createFiscalService, type FiscalService } from './fiscal-service.ts';
import { openFiscalTestTenant, saleInput, TEST_FISCAL_CONFIG, type FiscalTestTenant } from './test-support.ts';

let t: FiscalTestTenant;
let fiscal: FiscalService;
let loc: string;
let fdmId: string;

beforeAll(async () => {
  t = await openFiscalTestTenant('export');
  fiscal = createFiscalService(TEST_FISCAL_CONFIG, t.log);
});
afterAll(async () => {
  await t.close();
});

/** The booking dates of the 5 entries: days long past, though all are signed now (as a Z report closing a day late is). */
const BOOKED = ['2026-10-24', '2026-10-24', '2026-10-25', '2026-10-26', '2026-10-26'];

/** A fresh device with a journal of 5 signed entries. */
beforeEach(async () => {
  loc = await t.addLocation();
  fdmId = await t.enrol(loc, 'software');
  for (let i = 0; i < 5; i++) await fiscal.signEvent(t.tdb, { ...saleInput(loc, crypto.randomUUID(), 100 + i * 5), businessDay: { id: crypto.randomUUID(), date: BOOKED[i]! } });
});

/** The device's verification; `withPublicKey` false checks as for a remote module (seals and hashes only). */
async function verification(withPublicKey = true) {
  const devices = await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, withPublicKey ? fiscal : { publicKeyFor: () => '', sealKey: fiscal.sealKey });
  expect(devices.map((d) => d.fdm_id)).toEqual([fdmId]);
  return devices[0]!.verification;
}

const rowAt = (seq: number) => t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).where('seq', '=', seq).executeTakeFirstOrThrow();
const update = (seq: number, set: Record<string, unknown>) =>
  t.tdb.updateTable('fiscal_journal').set(set).where('fdm_id', '=', fdmId).where('seq', '=', seq).execute();

describe('exportJournal verification', () => {
  test('an intact journal verifies and exports the window', async () => {
    expect(await verification()).toEqual({ ok: true, count: 5, pending: 0, failed: 0, last_seq: 5 });
    const all = (await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal))[0]!;
    expect(all.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(all.entries[0]).toMatchObject({ status: 'signed', event_kind: 'sale', subject_type: 'pos_order', sign_error: null });
    expect(all.entries[0]!.sign_result!.fdmRef.fdmId).toBe(fdmId);
    // The window is of booking dates, not of signing times: every entry here was signed today.
    const window: DeviceJournal = (await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels', from: '2026-10-25', to: '2026-10-25' }, fiscal))[0]!;
    expect(window.entries.map((e) => e.seq)).toEqual([3]);
    expect((await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels', to: '2026-10-24' }, fiscal))[0]!.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(window.verification.ok).toBe(true); // always over the whole journal
    expect(await exportJournal(t.tdb, { locationId: await t.addLocation(), timeZone: 'Europe/Brussels' }, fiscal)).toEqual([]);
    expect(await locationsWithFiscalHistory(t.tdb, [loc])).toEqual(new Set([loc]));
  });

  test('a window holding more entries than an export answers is refused; fewer, and a narrower window, are answered', async () => {
    expect((await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels', maxEntries: 5 }, fiscal))[0]!.entries).toHaveLength(5);
    const refused = await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels', maxEntries: 4 }, fiscal, 2).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'validation', message: fiscalExportTooLarge(4), errors: { from: [fiscalExportTooLarge(4)] } });
    const narrowed = await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels', maxEntries: 4, from: '2026-10-25' }, fiscal, 2);
    expect(narrowed[0]!.entries.map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(narrowed[0]!.verification.ok).toBe(true);
  });

  test('an altered payload', async () => {
    const r = await rowAt(3);
    await update(3, { payload: r.payload.replace('"lineTotal":110', '"lineTotal":1') });
    expect(await verification()).toMatchObject({ ok: false, seq: 3, problem: 'altered' });
  });

  test('an altered sign result', async () => {
    const r = await rowAt(2);
    const sr = JSON.parse(r.sign_result!) as SignResult;
    await update(2, { sign_result: canonicalJson({ ...sr, shortSignature: 'AAAAAAAA' }) });
    expect(await verification()).toMatchObject({ ok: false, seq: 2, problem: 'altered' });
  });

  test('a re-hashed forged sign result fails the signature check', async () => {
    const r = await rowAt(4);
    const sr = JSON.parse(r.sign_result!) as SignResult;
    const forged = { ...sr, digitalSignature: Buffer.alloc(64, 7).toString('base64') };
    const { resultHash } = await import('@pos/fiscal');
    await update(4, { sign_result: canonicalJson(forged), result_hash: resultHash(r.hash, forged) });
    expect(await verification()).toMatchObject({ ok: false, seq: 4, problem: 'bad_signature' });
    expect((await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, { ...fiscal, publicKeyFor: () => '' }))[0]!.verification).toMatchObject({ ok: false, seq: 4, problem: 'bad_seal' }); // without the public key, the seal still catches it
  });

  test('an entry altered with every later hash recomputed (a re-forged journal)', async () => {
    const { chainHash, resultHash } = await import('@pos/fiscal');
    let prevHash = (await rowAt(2)).hash;
    for (let seq = 3; seq <= 5; seq++) {
      const r = await rowAt(seq);
      const payload = seq === 3 ? r.payload.replace('"lineTotal":110', '"lineTotal":1') : r.payload;
      const hash = chainHash(prevHash, { seq, fdm_id: r.fdm_id, event_kind: r.event_kind as 'sale', payload });
      await update(seq, { payload, prev_hash: prevHash, hash, result_hash: resultHash(hash, JSON.parse(r.sign_result!) as SignResult) });
      prevHash = hash;
    }
    expect((await rowAt(3)).payload).toContain('"lineTotal":1,');
    // The same check as a remote module's journal gets (no public key): the seals catch it.
    expect(await verification(false)).toMatchObject({ ok: false, seq: 3, problem: 'bad_seal' });
    expect(await verification()).toMatchObject({ ok: false, seq: 3 });
  });

  test('a removed seal', async () => {
    await update(5, { seal: null });
    expect(await verification(false)).toMatchObject({ ok: false, seq: 5, problem: 'bad_seal', detail: 'entry is not sealed' });
  });

  test('a changed seq', async () => {
    await update(2, { seq: 99 });
    expect(await verification()).toMatchObject({ ok: false, seq: 2, problem: 'removed' });
    await update(99, { seq: 2 });
    await update(5, { seq: 50 });
    await update(4, { seq: 5 });
    expect(await verification()).toMatchObject({ ok: false, seq: 4, problem: 'removed' });
  });

  test('swapped entries', async () => {
    await update(2, { seq: -2 });
    await update(3, { seq: 2 });
    await update(-2, { seq: 3 });
    expect(await verification()).toMatchObject({ ok: false, seq: 2, problem: 'altered' });
  });

  test('a deleted row, in the middle or at the end', async () => {
    await t.tdb.deleteFrom('fiscal_journal').where('fdm_id', '=', fdmId).where('seq', '=', 5).execute();
    expect(await verification()).toMatchObject({ ok: false, seq: 5, problem: 'removed' });
    await t.tdb.deleteFrom('fiscal_journal').where('fdm_id', '=', fdmId).where('seq', '=', 3).execute();
    expect(await verification()).toMatchObject({ ok: false, seq: 3, problem: 'removed' });
  });

  test('a signed entry put back to pending (its result removed): in the middle or at the end of a software-mode journal', async () => {
    const downgrade = { status: 'pending', sign_result: null, result_hash: null, result_seal: null, completed_at: null };
    await update(5, downgrade);
    // Before: verified ok with `pending: 1`; the module's signature gone without a trace.
    expect(await verification()).toMatchObject({ ok: false, seq: 5, problem: 'altered', detail: 'a software-mode entry is never pending' });
    await update(3, downgrade);
    expect(await verification()).toMatchObject({ ok: false, seq: 3, problem: 'altered' });
  });

  test('a remote journal: pending entries only at its end (entries complete in journal order)', async () => {
    const rows = await t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq').execute();
    const pendingAt = (seqs: number[]) => rows.map((r) => (seqs.includes(Number(r.seq)) ? { ...r, status: 'pending' as const, sign_result: null, result_hash: null, result_seal: null, completed_at: null } : r));
    const check = (seqs: number[]) => verifyDeviceRows(pendingAt(seqs), { sealKey: fiscal.sealKey, expectedLastSeq: 5 });
    // Waiting for a module: the last entries.
    expect(check([4, 5])).toMatchObject({ ok: true, pending: 2 });
    // A completed entry after a pending one cannot happen: one was put back to pending.
    expect(check([3])).toMatchObject({ ok: false, seq: 3, problem: 'altered', detail: 'pending entry before a completed one' });
  });

  test('read page by page (2 rows at a time here): the same entries and verification, and an entry altered on a later page is found', async () => {
    const whole = (await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal))[0]!;
    const paged = (await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal, 2))[0]!;
    expect(paged).toEqual(whole);
    expect(paged.verification).toEqual({ ok: true, count: 5, pending: 0, failed: 0, last_seq: 5 });
    const r = await rowAt(5);
    await update(5, { payload: r.payload.replace('"lineTotal":120', '"lineTotal":1') });
    expect((await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal, 2))[0]!.verification).toMatchObject({ ok: false, seq: 5, problem: 'altered' });
  });

  test('a remote module completing entries while the export reads its pages: one snapshot, no false alarm', async () => {
    await t.tdb.updateTable('fdm_devices').set({ mode: 'remote' }).where('fdm_id', '=', fdmId).execute();
    const signed = await t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).where('seq', '>=', 2).orderBy('seq').execute();
    await t.tdb
      .updateTable('fiscal_journal')
      .set({ status: 'pending', sign_result: null, result_hash: null, result_seal: null, completed_at: null })
      .where('fdm_id', '=', fdmId)
      .where('seq', '>=', 2)
      .execute();
    // Once the first page (seq 1 signed, 2 pending) is read, the module's answers for 2..5 are written.
    let completed = false;
    const reading = t.tdb.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        const rows = args.result.rows as { fdm_id?: string; seq?: unknown }[];
        if (!completed && rows.length > 0 && rows[0]!.fdm_id === fdmId && rows[0]!.seq !== undefined) {
          completed = true;
          for (const r of signed) await update(Number(r.seq), { status: r.status, sign_result: r.sign_result, result_hash: r.result_hash, result_seal: r.result_seal, completed_at: r.completed_at });
        }
        return args.result;
      },
    });
    const during = (await exportJournal(reading, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal, 2))[0]!;
    expect(completed).toBe(true);
    // Before: { ok: false, seq: 2, problem: 'altered', detail: 'pending entry before a completed one' }.
    expect(during.verification).toEqual({ ok: true, count: 5, pending: 4, failed: 0, last_seq: 5 });
    expect(during.entries.map((e) => e.status)).toEqual(['signed', 'pending', 'pending', 'pending', 'pending']);
    expect((await exportJournal(t.tdb, { locationId: loc, timeZone: 'Europe/Brussels' }, fiscal, 2))[0]!.verification).toEqual({ ok: true, count: 5, pending: 0, failed: 0, last_seq: 5 });
  });

  test('signing refuses to continue a journal whose head was removed', async () => {
    await t.tdb.deleteFrom('fiscal_journal').where('fdm_id', '=', fdmId).where('seq', '=', 5).execute();
    await expect(fiscal.signEvent(t.tdb, saleInput(loc))).rejects.toThrow(/inconsistent/);
    const rows = await t.tdb.selectFrom('fiscal_journal').select('seq').where('fdm_id', '=', fdmId).execute();
    expect(rows.length).toBe(4);
  });
});
