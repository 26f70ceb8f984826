import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { SESSION_CLOSED } from '@pos/core/table-qr/table-sessions';
import { TABLE_SESSION_IDLE_MS } from '@pos/domain';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { onlineOrder } from './table-qr-test-helpers.ts';

// When a table's QR session ends (docs/decisions.md "Online and table ordering robustness"): staff close
// the table, or nobody ordered at it for TABLE_SESSION_IDLE_MS; the next party then opens its own session
// instead of joining the previous party's. Real PostgreSQL and Redis.
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const loc = () => a.table_sections[0]!.location_id;
const section = () => a.table_sections[0]!.id;
const scan = async (table: number) => (await api.call('GET', `/api/table-qr-ordering/${loc()}/${section()}/${table}`)).body as { data: { id: string; status: string }; opened: boolean };
const session = (id: string) => tdb().selectFrom('table_sessions').select(['status', 'closed_at']).where('id', '=', id).executeTakeFirstOrThrow();
const age = (id: string, ms: number) => tdb().updateTable('table_sessions').set({ opened_at: new Date(Date.now() - ms) }).where('id', '=', id).execute();
const close = (table: number | string, token = owner, sectionId = section()) => api.call('POST', `/api/back-office/table-sections/${sectionId}/tables/${table}/close`, { token });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('tqend-a');
  b = await api.seed('tqend-b');
  owner = await api.ownerToken(a);
});
afterAll(() => api.close());

describe('a table session nobody orders at ends by itself', () => {
  test('the next scan after the idle time closes the old session and opens a new one', async () => {
    const first = await scan(5);
    expect(first.opened).toBe(true);
    await age(first.data.id, TABLE_SESSION_IDLE_MS + 60_000);
    const next = await scan(5);
    expect([next.opened, next.data.status]).toEqual([true, 'open']);
    expect(next.data.id).not.toBe(first.data.id);
    expect(await session(first.data.id)).toEqual({ status: 'closed', closed_at: expect.any(Date) });
    // The old session's link still shows it, closed.
    const details = await api.call('GET', `/api/table-qr-ordering/${loc()}/session/${first.data.id}`);
    expect([details.status, details.body.data.status]).toEqual([200, 'closed']);
  });

  test('an order within the idle time keeps the party\'s session open', async () => {
    const s = await scan(6);
    await onlineOrder(api, a, loc(), { tableSessionId: s.data.id });
    await age(s.data.id, TABLE_SESSION_IDLE_MS + 60_000);
    const again = await scan(6);
    expect([again.opened, again.data.id]).toEqual([false, s.data.id]);
  });

  test('an idle session takes no order and no bind: 422 session_closed, nothing stored', async () => {
    const s = await scan(7);
    await age(s.data.id, TABLE_SESSION_IDLE_MS + 1000);
    const count = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc()}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }], table_session_id: s.data.id } });
    expect([r.status, r.body.message, r.body.reason]).toEqual([422, SESSION_CLOSED, 'session_closed']);
    expect(await count()).toBe(before);
    const paid = await onlineOrder(api, a, loc());
    const bind = await api.call('POST', `/api/table-qr-ordering/${loc()}/session/${s.data.id}/bind-order`, { body: { transaction_id: paid } });
    expect([bind.status, bind.body.reason]).toEqual([422, 'session_closed']);
    expect((await tdb().selectFrom('transactions').select('table_session_id').where('id', '=', paid).executeTakeFirstOrThrow()).table_session_id).toBeNull();
  });
});

describe('staff close a table', () => {
  test('closing the table ends its session; the next scan opens a new one; closing again is a no-op', async () => {
    const s = await scan(8);
    const r = await close(8);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: section(), tables: 20 });
    expect(await session(s.data.id)).toEqual({ status: 'closed', closed_at: expect.any(Date) });
    const log = await tdb().selectFrom('activity_logs').select(['action', 'subject', 'subject_id']).where('subject_id', '=', s.data.id).execute();
    expect(log).toEqual([{ action: 'closed', subject: 'table session', subject_id: s.data.id }]);
    const next = await scan(8);
    expect(next.opened).toBe(true);
    expect(next.data.id).not.toBe(s.data.id);
    expect((await close(9)).status).toBe(200);
  });

  test('a table outside the section, another merchant\'s section or no token: 404 / 404 / 401, nothing closed', async () => {
    const s = await scan(10);
    for (const t of [0, 21, 'x', '1e1']) expect([t, (await close(t)).status]).toEqual([t, 404]);
    const ownerB = await api.ownerToken(b);
    expect((await close(10, ownerB)).status).toBe(404);
    expect((await api.call('POST', `/api/back-office/table-sections/${section()}/tables/10/close`)).status).toBe(401);
    expect((await session(s.data.id)).status).toBe('open');
  });
});
