import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import type { FiscalEvent } from './events.ts';
import { moneyInOutEvent } from './events.ts';
import { MemoryCounterStore, SoftwareSigner, verifySignature } from './software-signer.ts';
import { testCommon, testSale } from './test-fixtures.ts';

const SEED = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
const signer = () => new SoftwareSigner({ fdmId: 'FDM-1', seedHex: SEED, verificationBaseUrl: 'https://verify.example/v', clock: () => new Date('2026-07-01T10:15:01Z') });

describe('SoftwareSigner', () => {
  test('a sale signature verifies, with a short signature and a verification URL', async () => {
    const s = signer();
    const sale = testSale();
    const r = await s.sign(sale);
    expect(r.eventOperation).toBe('SALE');
    expect(r.fdmRef).toEqual({ fdmId: 'FDM-1', fdmDateTime: '2026-07-01T10:15:01.000Z', eventLabel: 'N', eventCounter: 1, totalCounter: 1 });
    expect(r.shortSignature).toMatch(/^[A-Z2-7]{8}$/);
    const url = new URL(r.verificationUrl ?? '');
    expect(Object.fromEntries(url.searchParams)).toEqual({ fdmId: 'FDM-1', eventLabel: 'N', eventCounter: '1', totalCounter: '1', shortSignature: r.shortSignature ?? '' });
    expect(verifySignature(s.publicKeyPem, sale, r)).toBe(true);
  });

  test('signatures do not verify for another event, another result or another key', async () => {
    const s = signer();
    const sale = testSale();
    const r = await s.sign(sale);
    expect(verifySignature(s.publicKeyPem, testSale({ posFiscalTicketNo: 2 }), r)).toBe(false);
    expect(verifySignature(s.publicKeyPem, sale, { ...r, fdmRef: { ...r.fdmRef, totalCounter: 9 } })).toBe(false);
    expect(verifySignature(s.publicKeyPem, sale, { ...r, shortSignature: 'AAAAAAAA' })).toBe(false);
    const other = generateKeyPairSync('ed25519').publicKey;
    expect(verifySignature(other, sale, r)).toBe(false);
  });

  test('counters increase per label and in total; training signs as T', async () => {
    const s = signer();
    const c = testCommon();
    const events: FiscalEvent[] = [
      { ...c, kind: 'work_in' },
      testSale(),
      moneyInOutEvent(c, 'paid_in', 500),
      testSale(),
      { ...c, kind: 'drawer_open' },
      { ...c, kind: 'work_out' },
      testSale({ isTraining: true }),
    ];
    const refs = [];
    for (const e of events) refs.push((await s.sign(e)).fdmRef);
    expect(refs.map((r) => [r.eventLabel, r.eventCounter, r.totalCounter])).toEqual([
      ['S', 1, 1],
      ['N', 1, 2],
      ['F', 1, 3],
      ['N', 2, 4],
      ['F', 2, 5],
      ['S', 2, 6],
      ['T', 1, 7],
    ]);
  });

  test('counters continue from a persisted state, and can be given explicitly', async () => {
    const store = new MemoryCounterStore({ totalCounter: 41, eventCounters: { N: 30 } });
    const s = signer().withCounters(store);
    const r = await s.sign(testSale());
    expect([r.fdmRef.eventCounter, r.fdmRef.totalCounter]).toEqual([31, 42]);
    expect(store.snapshot()).toEqual({ totalCounter: 42, eventCounters: { N: 31 } });
    const explicit = signer().signWithCounters({ ...testCommon(), kind: 'work_in' }, { eventCounter: 5, totalCounter: 77 });
    expect([explicit.fdmRef.eventLabel, explicit.fdmRef.eventCounter, explicit.fdmRef.totalCounter]).toEqual(['S', 5, 77]);
    expect(explicit.shortSignature).toBeUndefined();
    expect(() => signer().signWithCounters(testSale(), { eventCounter: 0, totalCounter: 1 })).toThrow(RangeError);
  });

  test('a PEM key and a seed key are interchangeable; non-Ed25519 keys are refused', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const s = new SoftwareSigner({ fdmId: 'FDM-2', privateKeyPem: pem, verificationBaseUrl: 'https://v.example' });
    const r = await s.sign(testSale());
    expect(verifySignature(s.publicKeyPem, testSale(), r)).toBe(true);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => new SoftwareSigner({ fdmId: 'x', privateKeyPem: rsa, verificationBaseUrl: 'https://v.example' })).toThrow(TypeError);
    expect(() => new SoftwareSigner({ fdmId: 'x', seedHex: 'abc', verificationBaseUrl: 'https://v.example' })).toThrow(TypeError);
  });
});
