import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** Hostile variants against every payment route (kiosk and back office): nothing may answer 5xx, nothing is written. */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let kiosk: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pay-fuzz');
  owner = await api.ownerToken(m);
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(() => api.close());

const HOSTILE: unknown[] = ['a\u0000b', 1e308, -1, -2147483649, 2147483648, 1.5, 'x'.repeat(70_000), { nested: { deep: [1] } }, [null], null, true, '', '00000000-0000-0000-0000-000000000000', [{ item_id: 'x', qty: 1e9 }]];
const QUERY_HOSTILE = ['a%00b', '%27%3B--', 'x'.repeat(5000), '-1', '1e308', '%E2%80%AE'];

describe('payment routes fuzz', () => {
  test('hostile bodies, queries and path values never answer 5xx and write nothing', async () => {
    const routes = ((api.app as any).routes as { method: string; path: string; hooks: any }[]).filter((r) => r.path.startsWith('/api/kiosk/payment') || r.path.startsWith('/api/back-office/transactions'));
    expect(routes.length).toBe(13);
    const failures: string[] = [];
    for (const r of routes) {
      const token = r.path.startsWith('/api/kiosk') ? { token: kiosk, deviceKey: true } : { token: owner };
      const paths = r.path.includes(':') ? ['a%00b', 'x'.repeat(300), crypto.randomUUID(), `idemp_${m.kiosk.device_id}_1795000000000`].map((v) => r.path.replace(/:\w+/, v)) : [r.path];
      const fields = Object.keys(r.hooks?.body?.properties ?? {});
      const queryFields = Object.keys(r.hooks?.query?.properties ?? {});
      for (const p of paths) {
        const bodies: unknown[] = r.method === 'GET' ? [undefined] : [null, [], 'str', 42, {}, ...fields.flatMap((f) => HOSTILE.map((v) => ({ [f]: v })))];
        for (const body of bodies) {
          const res = await api.call(r.method, p, { ...token, body });
          if (res.status >= 500) failures.push(`${r.method} ${p.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 60)}: ${res.status} ${res.text.slice(0, 100)}`);
        }
        for (const f of queryFields) {
          for (const v of QUERY_HOSTILE) {
            const res = await api.call(r.method, `${p}?${f}=${v}`, { ...token, body: r.method === 'GET' ? undefined : {} });
            if (res.status >= 500) failures.push(`${r.method} ${p}?${f}=${v.slice(0, 20)}: ${res.status} ${res.text.slice(0, 100)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    const { n } = await api.deps.db.withSchema(m.merchant.tenant_database).selectFrom('transactions' as any).select((e: any) => e.fn.countAll().as('n')).executeTakeFirstOrThrow() as { n: string };
    expect(Number(n)).toBe(0);
  }, 120_000);
});
