/**
 * The one signed-change step (issue 10 item 4) and the registry the recovery hooks derive from.
 * Real PostgreSQL (a tenant schema of its own), the in-process signer, and the FDM simulator over
 * HTTP for the remote flow. The register's own kinds are exercised by the route suites.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createFiscalService, type FiscalService } from '../../fiscal/fiscal-service.ts';
import { findJournalEntry } from '../../fiscal/find-journal-entry.ts';
import { cashSale, openFiscalTestTenant, TEST_FISCAL_CONFIG, type FiscalTestTenant } from '../../fiscal/test-support.ts';
import type { SignedFiscalEvent } from '../../fiscal/journal-rows.ts';
import { recoveryHooksOf, registerRecoveryHooks } from '../fiscal-recovery/recovery-hooks.ts';
import { SALE_SUBJECT_TYPE } from '../orders/settle-order.ts';
import { REFUND_SUBJECT_TYPE } from '../refunds/refund-sale.ts';
import { MOVEMENT_SUBJECT_TYPE } from '../tills/record-till-movement.ts';
import { X_REPORT_SUBJECT_TYPE } from '../business-day/get-x-report.ts';
import { Z_REPORT_SUBJECT_TYPE } from '../business-day/close-business-day.ts';
import { WORK_EVENT_SUBJECT_TYPE } from '../staff/sign-work-event.ts';
import { SIGNED_CHANGE_KINDS } from './registry.ts';
import { ORDER_EVENT_SUBJECT_TYPE } from '../orders/sign-fire.ts';
import { runSignedChange, type Refusal, type SignedChangeCall, type SignedChangeKind } from './signed-change.ts';

let t: FiscalTestTenant;
let fiscal: FiscalService;
const sims: FdmSimulator[] = [];
const SECRET = 'signed-change-secret';

beforeAll(async () => {
  t = await openFiscalTestTenant('signed-change');
  fiscal = createFiscalService(TEST_FISCAL_CONFIG, t.log);
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  await t.close();
});

/** A kind that records what the step asks of it (its reservation is the journal entry alone). */
function recordingKind(subjectType = `test_${crypto.randomUUID().slice(0, 8)}`, opts: { failFinish?: boolean } = {}) {
  const finished: { id: string; journal_id: string }[] = [];
  const undone: { id: string; refusal: Refusal }[] = [];
  const kind: SignedChangeKind<string> = {
    name: 'test',
    subjectType,
    async finish(tx: TenantTx, id, signed) {
      expect(tx.isTransaction).toBe(true);
      if (opts.failFinish) throw new Error('finish failed');
      finished.push({ id, journal_id: signed.journal_id });
      return `finished ${id}`;
    },
    async undo(tx: TenantTx, id, refusal) {
      expect(tx.isTransaction).toBe(true);
      undone.push({ id, refusal });
    },
  };
  return { kind, finished, undone };
}

const call = (locationId: string, subjectId: string, prepared: string[] = []): SignedChangeCall<string, { n: number }, string> => ({
  locationId,
  async prepare() {
    prepared.push(subjectId);
    return { subjectId, state: { n: 1 }, input: { locationId, deviceId: 'POS-DEVICE-1', employeeId: 'staff-1', build: (c) => cashSale(c, 300) } };
  },
  respond: (finished, state) => `${finished} (${state.n})`,
});

const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as AppError);

describe('the registry', () => {
  test('one kind per register change, each with its own journal subject type', () => {
    expect(SIGNED_CHANGE_KINDS.map((k) => [k.name, k.subjectType])).toEqual([
      ['sale', SALE_SUBJECT_TYPE],
      ['refund', REFUND_SUBJECT_TYPE],
      ['till_movement', MOVEMENT_SUBJECT_TYPE],
      ['x_report', X_REPORT_SUBJECT_TYPE],
      ['z_report', Z_REPORT_SUBJECT_TYPE],
      ['work_event', WORK_EVENT_SUBJECT_TYPE],
      ['order', ORDER_EVENT_SUBJECT_TYPE],
    ]);
    expect(new Set(SIGNED_CHANGE_KINDS.map((k) => k.subjectType)).size).toBe(SIGNED_CHANGE_KINDS.length);
    expect(() => registerRecoveryHooks({ now: () => new Date() })).not.toThrow();
  });

  test('recovery hooks refuse two kinds of one subject type', () => {
    const a = recordingKind('same_subject').kind;
    expect(() => recoveryHooksOf([a, { ...a, name: 'other' }], { now: () => new Date() })).toThrow('Two signed-change kinds share the subject type same_subject');
  });
});

describe('in-process signer: one transaction', () => {
  test('prepare, sign and finish commit together; the answer comes from the finished record and the state', async () => {
    const loc = await t.addLocation();
    await t.enrol(loc, 'software');
    const { kind, finished } = recordingKind();
    const id = crypto.randomUUID();
    expect(await runSignedChange(t.tdb, fiscal, kind, call(loc, id), new Date())).toBe(`finished ${id} (1)`);
    const entry = await findJournalEntry(t.tdb, { type: kind.subjectType, id });
    expect(entry).toMatchObject({ status: 'signed' });
    expect(finished).toEqual([{ id, journal_id: entry!.journal_id }]);
  });

  test('a failing finish rolls the signature back: no entry, nothing counted', async () => {
    const loc = await t.addLocation();
    await t.enrol(loc, 'software');
    const { kind } = recordingKind(undefined, { failFinish: true });
    const id = crypto.randomUUID();
    expect(await failure(runSignedChange(t.tdb, fiscal, kind, call(loc, id), new Date()))).toMatchObject({ message: 'finish failed' });
    expect(await findJournalEntry(t.tdb, { type: kind.subjectType, id })).toBeNull();
    // The next change of the device is its first entry.
    const { kind: next } = recordingKind();
    const nextId = crypto.randomUUID();
    await runSignedChange(t.tdb, fiscal, next, call(loc, nextId), new Date());
    expect(await findJournalEntry(t.tdb, { type: next.subjectType, id: nextId })).toMatchObject({ seq: 1 });
  });

  test('without an active enrolment: 422 fiscal_not_enrolled, nothing prepared', async () => {
    const loc = await t.addLocation();
    const prepared: string[] = [];
    const e = await failure(runSignedChange(t.tdb, fiscal, recordingKind().kind, call(loc, crypto.randomUUID(), prepared), new Date()));
    expect(e).toMatchObject({ status: 422, reason: 'fiscal_not_enrolled' });
    expect(prepared).toEqual([]);
  });
});

describe('remote module', () => {
  async function remote(secret = SECRET) {
    const loc = await t.addLocation();
    const fdmId = `RFDM-${crypto.randomUUID().slice(0, 8)}`;
    await t.enrol(loc, 'remote', fdmId);
    const sim = startFdmSimulator({ deviceId: fdmId, sharedSecret: SECRET });
    sims.push(sim);
    return { loc, sim, fiscal: createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: sim.url, secrets: { [fdmId]: secret } } }, t.log) };
  }

  test('signed: the kind finishes the change after the module answered', async () => {
    const r = await remote();
    const { kind, finished, undone } = recordingKind();
    const id = crypto.randomUUID();
    expect(await runSignedChange(t.tdb, r.fiscal, kind, call(r.loc, id), new Date())).toBe(`finished ${id} (1)`);
    expect(finished).toHaveLength(1);
    expect(undone).toEqual([]);
  });

  test('refused: 422 fiscal_refused and the kind undoes the change (its own refusal: null)', async () => {
    const r = await remote('not-the-secret');
    const { kind, finished, undone } = recordingKind();
    const id = crypto.randomUUID();
    expect(await failure(runSignedChange(t.tdb, r.fiscal, kind, call(r.loc, id), new Date()))).toMatchObject({ status: 422, reason: 'fiscal_refused' });
    expect(finished).toEqual([]);
    expect(undone).toEqual([{ id, refusal: null }]);
  });

  test('unreachable: 503, the change is kept for recovery, whose hooks (derived from the kinds) run the same finish or undo', async () => {
    const r = await remote();
    const { kind, finished, undone } = recordingKind();
    const signedId = crypto.randomUUID();
    const refusedId = crypto.randomUUID();
    r.sim.simulateOutage(1000);
    try {
      for (const id of [signedId, refusedId]) {
        expect(await failure(runSignedChange(t.tdb, r.fiscal, kind, call(r.loc, id), new Date()))).toMatchObject({ status: 503, reason: 'fiscal_unreachable' });
      }
    } finally {
      r.sim.simulateOutage(0);
    }
    expect(finished).toEqual([]);
    expect(undone).toEqual([]);

    const hooks = recoveryHooksOf([kind], { now: () => new Date() });
    const outcome = await r.fiscal.completePending(t.tdb, (await findJournalEntry(t.tdb, { type: kind.subjectType, id: signedId }))!.journal_id);
    expect(outcome.status).toBe('signed');
    const signed = (outcome as { signed: SignedFiscalEvent }).signed;
    await hooks.onSigned!(t.tdb, signed);
    expect(finished).toEqual([{ id: signedId, journal_id: signed.journal_id }]);

    const refused = (await findJournalEntry(t.tdb, { type: kind.subjectType, id: refusedId }))!;
    await hooks.onFailed!(t.tdb, { journal_id: refused.journal_id, subject: { type: kind.subjectType, id: refusedId }, error: { code: 'X', message: 'x', status: 400 } });
    expect(undone).toEqual([{ id: refusedId, refusal: { journal_id: refused.journal_id } }]);

    // A subject of no kind is left alone.
    await hooks.onSigned!(t.tdb, { ...signed, subject: { type: 'not_a_kind', id: signedId } });
    expect(finished).toHaveLength(1);
  });

  test('a failure after the module signed (its answer not written): the change is kept, and recovery finishes it with that one signature', async () => {
    const r = await remote();
    const { kind, finished, undone } = recordingKind();
    const id = crypto.randomUUID();
    const failingWrite: typeof r.fiscal = {
      ...r.fiscal,
      sendReserved: async (db, reserved) => {
        await r.fiscal.sendReserved(db, reserved);
        throw new Error('the database went away while the answer was written');
      },
    };
    expect(await failure(runSignedChange(t.tdb, failingWrite, kind, call(r.loc, id), new Date()))).toMatchObject({ message: 'the database went away while the answer was written' });
    // Before: undone, so a retry reserved and signed the same change a second time.
    expect(undone).toEqual([]);
    expect(finished).toEqual([]);
    const entry = (await findJournalEntry(t.tdb, { type: kind.subjectType, id }))!;
    const hooks = recoveryHooksOf([kind], { now: () => new Date() });
    const outcome = await r.fiscal.completePending(t.tdb, entry.journal_id);
    if (outcome.status === 'signed') await hooks.onSigned!(t.tdb, outcome.signed);
    expect(finished).toEqual([{ id, journal_id: entry.journal_id }]);
  });
});
