import { describe, expect, test } from 'bun:test';
import type { FiscalEvent } from './events.ts';
import { appendEntry, appendSigned, chainHash, completeEntry, journalContent, resultHash, verifyJournal, type JournalEntry } from './journal.ts';
import { SoftwareSigner } from './software-signer.ts';
import { testCommon, testSale } from './test-fixtures.ts';

const SEAL_KEY = Buffer.alloc(32, 9);
const signer = new SoftwareSigner({ fdmId: 'FDM-1', seedHex: '11'.repeat(32), verificationBaseUrl: 'https://verify.example' });

function eventAt(i: number): FiscalEvent {
  const common = { posFiscalTicketNo: i };
  return i % 5 === 0 ? { ...testCommon(common), kind: 'work_in' } : testSale(common);
}

async function chain(n: number): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for (let i = 1; i <= n; i++) {
    const event = eventAt(i);
    entries.push(appendSigned(entries.at(-1) ?? null, journalContent('FDM-1', event), await signer.sign(event), SEAL_KEY));
  }
  return entries;
}

const replaceAt = (entries: JournalEntry[], i: number, e: JournalEntry) => entries.map((x, j) => (j === i ? e : x));

describe('journal', () => {
  test('a valid chain of 50 verifies, with signatures', async () => {
    const entries = await chain(50);
    expect(verifyJournal(entries)).toEqual({ ok: true, count: 50, pending: 0 });
    expect(verifyJournal(entries, { publicKey: signer.publicKeyPem, expectedLastSeq: 50 }).ok).toBe(true);
    expect(verifyJournal([])).toEqual({ ok: true, count: 0, pending: 0 });
  });

  test('detects an altered payload', async () => {
    const entries = await chain(50);
    const e = entries[9]!;
    const altered = { ...e, payload: e.payload.replace('"posFiscalTicketNo":10', '"posFiscalTicketNo":99') };
    expect(altered.payload).not.toBe(e.payload);
    expect(verifyJournal(replaceAt(entries, 9, altered))).toMatchObject({ ok: false, seq: 10, problem: 'altered' });
  });

  test('detects an altered sign result', async () => {
    const entries = await chain(50);
    const e = entries[19]!;
    const sr = e.sign_result!;
    const altered = { ...e, sign_result: { ...sr, fdmRef: { ...sr.fdmRef, eventCounter: sr.fdmRef.eventCounter + 1 } } };
    expect(verifyJournal(replaceAt(entries, 19, altered))).toMatchObject({ ok: false, seq: 20, problem: 'altered' });
  });

  test('detects a removed entry', async () => {
    const entries = await chain(50);
    expect(verifyJournal(entries.filter((e) => e.seq !== 25))).toMatchObject({ ok: false, seq: 25, problem: 'removed' });
    expect(verifyJournal(entries.slice(1))).toMatchObject({ ok: false, seq: 1, problem: 'removed' });
    expect(verifyJournal(entries.slice(0, 49), { expectedLastSeq: 50 })).toMatchObject({ ok: false, seq: 50, problem: 'removed' });
  });

  test('detects reordered entries', async () => {
    const entries = await chain(50);
    const swapped = [...entries];
    [swapped[30], swapped[31]] = [swapped[31]!, swapped[30]!];
    expect(verifyJournal(swapped)).toMatchObject({ ok: false, seq: 32, problem: 'reordered' });
  });

  test('detects a truncated middle', async () => {
    const entries = await chain(50);
    expect(verifyJournal([...entries.slice(0, 20), ...entries.slice(30)])).toMatchObject({ ok: false, seq: 21, problem: 'removed' });
  });

  test('detects a removal hidden by renumbering', async () => {
    const entries = await chain(10);
    const renumbered = [...entries.slice(0, 4), ...entries.slice(5).map((e) => ({ ...e, seq: e.seq - 1 }))];
    expect(verifyJournal(renumbered)).toMatchObject({ ok: false, seq: 5, problem: 'altered' });
  });

  test('a re-hashed sign result is caught by the signature check', async () => {
    const entries = await chain(5);
    const e = entries[2]!;
    const forged = completeEntry({ ...e, status: 'pending', sign_result: null, result_hash: null, result_seal: null }, { ...e.sign_result!, digitalSignature: e.sign_result!.digitalSignature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) }, SEAL_KEY);
    const tampered = replaceAt(entries, 2, forged);
    expect(verifyJournal(tampered).ok).toBe(true);
    expect(verifyJournal(tampered, { publicKey: signer.publicKeyPem })).toMatchObject({ ok: false, seq: 3, problem: 'bad_signature' });
  });

  test('pending entries chain on, are reported unless allowed, and complete without rewriting the chain', async () => {
    const entries = await chain(3);
    const pending = appendEntry(entries.at(-1)!, journalContent('FDM-1', eventAt(4)), SEAL_KEY);
    const after = appendSigned(pending, journalContent('FDM-1', eventAt(5)), await signer.sign(eventAt(5)), SEAL_KEY);
    const live = [...entries, pending, after];
    expect(verifyJournal(live)).toMatchObject({ ok: false, seq: 4, problem: 'pending' });
    expect(verifyJournal(live, { allowPending: true })).toEqual({ ok: true, count: 5, pending: 1 });
    const done = completeEntry(pending, await signer.sign(eventAt(4)), SEAL_KEY);
    expect(done.hash).toBe(pending.hash);
    expect(verifyJournal([...entries, done, after])).toEqual({ ok: true, count: 5, pending: 0 });
    expect(() => completeEntry(done, done.sign_result!, SEAL_KEY)).toThrow();
  });

  test('detects a duplicated module counter and a foreign device', async () => {
    const entries = await chain(3);
    const event = eventAt(4);
    const dup = appendSigned(entries.at(-1)!, journalContent('FDM-1', event), { ...(await signer.sign(event)), fdmRef: entries[0]!.sign_result!.fdmRef }, SEAL_KEY);
    expect(verifyJournal([...entries, dup])).toMatchObject({ ok: false, seq: 4, problem: 'duplicate_counter' });
    const foreign = appendSigned(entries.at(-1)!, journalContent('FDM-2', event), await signer.sign(event), SEAL_KEY);
    expect(verifyJournal([...entries, foreign])).toMatchObject({ ok: false, seq: 4, problem: 'foreign_device' });
  });

  test('survives a jsonb-style round trip of the sign result', async () => {
    const entries = await chain(5);
    const reversed = (v: unknown): unknown =>
      v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)])) : v;
    const roundTripped = entries.map((e) => ({ ...e, sign_result: JSON.parse(JSON.stringify(reversed(e.sign_result))) }));
    expect(Object.keys(roundTripped[0]!.sign_result)[0]).toBe('eventOperation');
    expect(verifyJournal(roundTripped as JournalEntry[]).ok).toBe(true);
  });

  test('a predecessor replaced under an intact entry is a broken link', async () => {
    const entries = await chain(10);
    const e = entries[5]!;
    const relinked = { ...e, prev_hash: 'f'.repeat(64) };
    const rehashed = { ...relinked, hash: chainHash(relinked.prev_hash, relinked) };
    expect(verifyJournal(replaceAt(entries, 5, rehashed))).toMatchObject({ ok: false, seq: 6, problem: 'broken_link' });
  });

  test('an entry altered with every later hash recomputed is caught by the seals', async () => {
    const entries = await chain(20);
    // Re-forge from seq 10 on, as someone with write access to the database (and no seal key) could.
    const forged: JournalEntry[] = entries.slice(0, 9);
    for (const e of entries.slice(9)) {
      const payload = e.seq === 10 ? e.payload.replace('"posFiscalTicketNo":10', '"posFiscalTicketNo":99') : e.payload;
      const prev_hash = forged.at(-1)!.hash;
      const hash = chainHash(prev_hash, { ...e, payload });
      forged.push({ ...e, payload, prev_hash, hash, result_hash: resultHash(hash, e.sign_result!) });
    }
    expect(forged[9]!.payload).not.toBe(entries[9]!.payload);
    expect(verifyJournal(forged)).toEqual({ ok: true, count: 20, pending: 0 }); // the hash chain alone proves order, not authenticity
    expect(verifyJournal(forged, { sealKey: SEAL_KEY })).toMatchObject({ ok: false, seq: 10, problem: 'bad_seal' });
    expect(verifyJournal(entries, { sealKey: SEAL_KEY })).toEqual({ ok: true, count: 20, pending: 0 });
    expect(verifyJournal(entries, { sealKey: Buffer.alloc(32, 8) })).toMatchObject({ ok: false, seq: 1, problem: 'bad_seal' });
  });

  test('a re-forged sign result, an unsealed entry and a pending entry under the seals', async () => {
    const entries = await chain(5);
    const e = entries[2]!;
    const sr = { ...e.sign_result!, shortSignature: 'FORGED00' };
    expect(verifyJournal(replaceAt(entries, 2, { ...e, sign_result: sr, result_hash: resultHash(e.hash, sr) }), { sealKey: SEAL_KEY })).toMatchObject({ ok: false, seq: 3, problem: 'bad_seal' });
    expect(verifyJournal(replaceAt(entries, 3, { ...entries[3]!, seal: null }), { sealKey: SEAL_KEY })).toMatchObject({ ok: false, seq: 4, problem: 'bad_seal' });
    const pending = appendEntry(entries.at(-1)!, journalContent('FDM-1', eventAt(6)), SEAL_KEY);
    expect(verifyJournal([...entries, pending], { sealKey: SEAL_KEY, allowPending: true })).toEqual({ ok: true, count: 6, pending: 1 });
    const done = completeEntry(pending, await signer.sign(eventAt(6)), SEAL_KEY);
    expect(verifyJournal([...entries, done], { sealKey: SEAL_KEY })).toEqual({ ok: true, count: 6, pending: 0 });
    // A completed entry turned back into a pending one keeps a result seal that no longer matches.
    expect(verifyJournal([...entries, { ...done, status: 'pending', sign_result: null, result_hash: null }], { sealKey: SEAL_KEY, allowPending: true })).toMatchObject({ ok: false, seq: 6, problem: 'altered' });
  });
});
