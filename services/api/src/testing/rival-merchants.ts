import { expect } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type CallResult, type TestApi } from './harness.ts';

/**
 * Two demo merchants on one test API, for the races of connecting a provider's store or site (delivery-a,
 * delivery-b, register-d, the OAuth callback): who wins a store, and whether a connection ever points
 * at another merchant's location.
 */
export interface RivalMerchants {
  readonly api: TestApi;
  readonly a: DemoSeedResult;
  readonly b: DemoSeedResult;
  /** The owners' back-office tokens. */
  readonly tokA: string;
  readonly tokB: string;
  /** Connections of `provider` (a LIKE pattern) whose location is not one of their own merchant's. */
  crossed(provider: string): Promise<{ merchant_id: string; location_id: string | null }[]>;
  /** Drops both merchants' connections, then closes the API and the simulators (`stops`). */
  close(): Promise<void>;
}

export async function rivalMerchants(env: Record<string, string>, seedPrefix: string, stops: readonly (() => Promise<void>)[]): Promise<RivalMerchants> {
  const api = await createTestApi({ env });
  const a = await api.seed(`${seedPrefix}-a`);
  const b = await api.seed(`${seedPrefix}-b`);
  const [tokA, tokB] = [await api.ownerToken(a), await api.ownerToken(b)];
  const ids = [a.merchant.id, b.merchant.id];
  return {
    api,
    a,
    b,
    tokA,
    tokB,
    async crossed(provider) {
      const rows = await api.deps.db.selectFrom('integration_connections').select(['merchant_id', 'location_id']).where('provider', 'like', provider).where('merchant_id', 'in', ids).execute();
      const locOf = new Map([[a.merchant.id, a.locations.map((l) => l.id)], [b.merchant.id, b.locations.map((l) => l.id)]]);
      return rows.filter((r) => !locOf.get(r.merchant_id)!.includes(r.location_id!));
    },
    async close() {
      await api.deps.db.deleteFrom('integration_connections').where('merchant_id', 'in', ids).execute();
      await api.close();
      for (const stop of stops) await stop();
    },
  };
}

/**
 * Both merchants connect each store at once (`connect(merchant, token, store)`), one round per store:
 * every round is one 200 and one 409 `integration_taken` with `takenMessage`, and no connection of
 * `provider` ends at another merchant's location.
 */
export async function expectOneWinnerPerStore(
  r: RivalMerchants,
  opts: { provider: string; stores: readonly string[]; takenMessage: string; connect: (m: DemoSeedResult, token: string, store: string) => Promise<CallResult> },
): Promise<void> {
  const outcomes: number[][] = [];
  for (const store of opts.stores) {
    const [ra, rb] = await Promise.all([opts.connect(r.a, r.tokA, store), opts.connect(r.b, r.tokB, store)]);
    outcomes.push([ra.status, rb.status].sort());
    expect(ra.status === 409 ? ra : rb).toMatchObject({ status: 409, body: { message: opts.takenMessage, reason: 'integration_taken' } });
  }
  expect(await r.crossed(opts.provider)).toEqual([]);
  expect(outcomes).toEqual(opts.stores.map(() => [200, 409]));
}
