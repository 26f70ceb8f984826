import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import type { FetchLike } from '@pos/providers/fdm/fdm-client';
import { AppError } from '@pos/kernel';
import { createFiscalService, type FiscalService } from './fiscal-service.ts';
import { findJournalEntry } from './find-journal-entry.ts';
import { recoverPendingEntries, type RecoveryHooks } from './recover-pending.ts';
import { openFiscalTestTenant, saleInput, TEST_FISCAL_CONFIG, type FiscalTestTenant } from './test-support.ts';

// A hostile pass over the remote fiscal data module flow: sends out of journal order, a module
// answering garbage, two senders of one entry.

let t: FiscalTestTenant;
const sims: FdmSimulator[] = [];
const SECRET = 'adversarial-shared-secret';

beforeAll(async () => {
  t = await openFiscalTestTenant('adversarial');
});
afterAll(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  await t.close();
});

/** What reached the module: the posFiscalTicketNo of every request, in arrival order. */
interface Wire {
  readonly arrived: number[];
  /** Answer the next request (before it reaches the module) with this response instead. */
  answerNext(r: () => Response): void;
  /** Hold requests of this ticket number this long before passing them on. */
  delayTicket(ticket: number, ms: number): void;
}

async function remoteSetup(opts: { hooks?: RecoveryHooks } = {}) {
  const loc = await t.addLocation();
  const fdmId = `AFDM-${crypto.randomUUID().slice(0, 8)}`;
  await t.enrol(loc, 'remote', fdmId);
  const sim = startFdmSimulator({ deviceId: fdmId, sharedSecret: SECRET });
  sims.push(sim);
  const arrived: number[] = [];
  const canned: (() => Response)[] = [];
  const delays = new Map<number, number>();
  const fetch: FetchLike = async (url, init) => {
    const ticket = (JSON.parse(String(init.body)) as { variables: { data: { posFiscalTicketNo: number } } }).variables.data.posFiscalTicketNo;
    const wait = delays.get(ticket);
    if (wait) await Bun.sleep(wait);
    const answer = canned.shift();
    if (answer) return answer();
    arrived.push(ticket);
    return globalThis.fetch(url, init);
  };
  const wire: Wire = { arrived, answerNext: (r) => void canned.push(r), delayTicket: (n, ms) => void delays.set(n, ms) };
  const fiscal: FiscalService = createFiscalService({ ...TEST_FISCAL_CONFIG, remote: { baseUrl: sim.url, secrets: { [fdmId]: SECRET } } }, t.log, { fetch, ...(opts.hooks ? { hooks: opts.hooks } : {}) });
  return { loc, fdmId, sim, fiscal, wire };
}

const journal = (fdmId: string) => t.tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', fdmId).orderBy('seq').execute();
const counters = async (fdmId: string) => (await journal(fdmId)).map((r) => [Number(r.seq), r.status, r.sign_result ? (JSON.parse(r.sign_result) as { fdmRef?: { totalCounter: number } }).fdmRef?.totalCounter ?? null : null]);
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as AppError);

describe('remote module: one device, journal order', () => {
  test('after an outage, the next live send sends the waiting entry first (N reaches the module before N+1)', async () => {
    const finished: string[] = [];
    const { loc, fdmId, sim, fiscal, wire } = await remoteSetup({ hooks: { onSigned: async (_tdb, s) => void finished.push(s.subject!.id) } });
    const first = crypto.randomUUID();
    sim.simulateOutage(1);
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc, first)));
    expect([e!.status, e!.reason]).toEqual([503, 'fiscal_unreachable']);

    const second = await fiscal.signEvent(t.tdb, saleInput(loc));
    expect(second.seq).toBe(2);
    expect(second.result.fdmRef.totalCounter).toBe(2);
    expect(wire.arrived).toEqual([1, 1, 2]); // the outage request, then 1 again, then 2
    expect(await counters(fdmId)).toEqual([
      [1, 'signed', 1],
      [2, 'signed', 2],
    ]);
    // The earlier entry's record is finished by the send that completed it (its own request answered 503 long ago).
    expect(finished).toEqual([first]);
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 0, failed: 0, pending: 0 });
  });

  test('while the module is still down, a later entry is not sent past the waiting one', async () => {
    const { loc, fdmId, sim, fiscal, wire } = await remoteSetup();
    sim.simulateOutage(1);
    await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    sim.simulateOutage(1);
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason]).toEqual([503, 'fiscal_unreachable']);
    expect(wire.arrived).toEqual([1, 1]); // 2 never went out ahead of 1
    expect(await counters(fdmId)).toEqual([
      [1, 'pending', null],
      [2, 'pending', null],
    ]);
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 2, pending: 0 });
    expect(await counters(fdmId)).toEqual([
      [1, 'signed', 1],
      [2, 'signed', 2],
    ]);
  });

  test('two concurrent sends: the slower earlier entry still reaches the module first', async () => {
    const { loc, fdmId, fiscal, wire } = await remoteSetup();
    wire.delayTicket(1, 300);
    const a = fiscal.signEvent(t.tdb, saleInput(loc));
    await Bun.sleep(50); // a's entry (seq 1) is committed and on its way
    const b = fiscal.signEvent(t.tdb, saleInput(loc));
    const [sa, sb] = await Promise.all([a, b]);
    expect([sa.seq, sb.seq]).toEqual([1, 2]);
    expect(wire.arrived).toEqual([1, 2]);
    expect(await counters(fdmId)).toEqual([
      [1, 'signed', 1],
      [2, 'signed', 2],
    ]);
  });

  test('a client retry and the recovery sweep on one entry: the module gets it once', async () => {
    const { loc, sim, fiscal, wire } = await remoteSetup();
    const orderId = crypto.randomUUID();
    sim.simulateOutage(1);
    await failure(fiscal.signEvent(t.tdb, saleInput(loc, orderId)));
    const state = await findJournalEntry(t.tdb, { type: 'pos_order', id: orderId });
    wire.delayTicket(1, 100);
    const [a, b] = await Promise.all([fiscal.completePending(t.tdb, state!.journal_id), recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })]);
    expect(a.status).toBe('signed');
    expect(b.outcomes.map((o) => o.status)).toEqual(['signed']);
    expect(wire.arrived).toEqual([1, 1]); // the request lost to the outage, then exactly one more
    expect(sim.signedCount).toBe(1);
  });
});

describe('remote module answering garbage', () => {
  test('a 200 without a usable fdmRef is not a refusal: the module may have counted it, so the entry stays pending', async () => {
    const { loc, fdmId, fiscal, wire } = await remoteSetup();
    wire.answerNext(() => Response.json({ data: { signSale: { fdmRef: { eventLabel: '??' }, digitalSignature: 42 } } }));
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason, e!.message]).toEqual([503, 'fiscal_unreachable', 'The fiscal data module is unreachable; the sale is kept and will be signed when it answers.']);
    expect(await counters(fdmId)).toEqual([[1, 'pending', null]]);
    expect(await recoverPendingEntries(t.tdb, fiscal, { olderThanMs: 0 })).toMatchObject({ signed: 1, failed: 0 });
    expect(await counters(fdmId)).toEqual([[1, 'signed', 1]]);
  });

  test('a 200 whose body is not JSON leaves the entry pending too', async () => {
    const { loc, fdmId, fiscal, wire } = await remoteSetup();
    wire.answerNext(() => new Response('<html>gateway</html>', { status: 200 }));
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason]).toEqual([503, 'fiscal_unreachable']);
    expect(await counters(fdmId)).toEqual([[1, 'pending', null]]);
  });

  test('an answer for another ticket is not taken as this entry\'s signature', async () => {
    const { loc, fdmId, fiscal, wire } = await remoteSetup();
    await fiscal.signEvent(t.tdb, saleInput(loc));
    const first = (await journal(fdmId))[0]!;
    const stale = JSON.parse(first.sign_result!) as Record<string, unknown>;
    // A proxy replaying the previous answer (ticket 1) to the request of ticket 2.
    wire.answerNext(() => Response.json({ data: { signSale: { ...stale, posFiscalTicketNo: 1, shortSignature: stale.shortSignature ?? null } } }));
    const e = await failure(fiscal.signEvent(t.tdb, saleInput(loc)));
    expect([e!.status, e!.reason]).toEqual([503, 'fiscal_unreachable']);
    expect((await counters(fdmId))[1]).toEqual([2, 'pending', null]);
  });
});
