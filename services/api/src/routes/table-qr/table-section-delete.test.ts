import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { TABLE_SESSION_IDLE_MS } from '@pos/domain';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { whileWriting } from '../../testing/while-writing.ts';

// Deleting a table section: refused while a party is at one of its tables (as a shrink is), once when
// sent twice at once, and the 404 a later request gets for an edit or a close racing it.
let api: TestApi;
let a: DemoSeedResult;
let owner: string;
const BO = '/api/back-office';
const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const loc = () => a.table_sections[0]!.location_id;
const newSection = async (name: string) => (await api.call('POST', `${BO}/table-sections`, { token: owner, body: { location_id: loc(), name, tables: 9 } })).body.data.id as string;
const scan = async (section: string, table: number) => (await api.call('GET', `/api/table-qr-ordering/${loc()}/${section}/${table}`)).body as { data: { id: string } };
const deletedLogs = async (id: string) => (await tdb().selectFrom('activity_logs').select('id').where('subject_id', '=', id).where('action', '=', 'deleted').execute()).length;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('tqdel-a');
  owner = await api.ownerToken(a);
});
afterAll(() => api.close());

describe('DELETE /back-office/table-sections/{id}', () => {
  test('refused while a party is at a table (409 section_in_use, nothing deleted); allowed once the table is closed or idle', async () => {
    const s = await newSection('Terrace');
    const session = await scan(s, 7);
    const refused = await api.call('DELETE', `${BO}/table-sections/${s}`, { token: owner });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 409, body: { message: 'The section has an open session: close its tables first.', reason: 'section_in_use' } });
    expect((await api.call('GET', `${BO}/table-sections/${s}`, { token: owner })).status).toBe(200);
    // Idle past the session's end: nobody is there any more.
    await tdb().updateTable('table_sessions').set({ opened_at: new Date(Date.now() - TABLE_SESSION_IDLE_MS - 60_000) }).where('id', '=', session.data.id).execute();
    expect((await api.call('DELETE', `${BO}/table-sections/${s}`, { token: owner })).status).toBe(200);

    const t = await newSection('Garden');
    await scan(t, 2);
    expect((await api.call('POST', `${BO}/table-sections/${t}/tables/2/close`, { token: owner })).status).toBe(200);
    expect((await api.call('DELETE', `${BO}/table-sections/${t}`, { token: owner })).status).toBe(200);
  });

  test('five deletes at once: one 200 and one "deleted" entry, the others the 404 a later delete gets', async () => {
    const s = await newSection('Twice');
    const answers = await Promise.all(Array.from({ length: 5 }, () => api.call('DELETE', `${BO}/table-sections/${s}`, { token: owner })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404, 404, 404]);
    expect(answers.find((r) => r.status === 404)!.body).toEqual({ message: 'Unable to locate the table section you requested.' });
    expect(await deletedLogs(s)).toBe(1);
  });

  for (const [what, method, path, body] of [
    ['an edit', 'PUT', '', { name: 'Renamed' }],
    ['a table close', 'POST', '/tables/1/close', undefined],
  ] as const) {
    test(`${what} racing the delete is the 404 a later request gets (before: a 500)`, async () => {
      const s = await newSection(`Racing ${what}`);
      const r = await whileWriting(
        tdb(),
        async (t) => {
          await t.deleteFrom('table_sections').where('id', '=', s).execute();
        },
        () => api.call(method, `${BO}/table-sections/${s}${path}`, { token: owner, body }),
      );
      expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { message: 'Unable to locate the table section you requested.' } });
    });
  }
});
