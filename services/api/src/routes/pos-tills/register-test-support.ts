/** Test-only helpers shared by the till, refund and business-day route tests. */
import { expect } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { FISCAL_WORK_EVENT_JOB } from '@pos/kernel/queues/index';
import { signWorkEvent, type WorkEventOutcome } from '@pos/core/pos/staff/sign-work-event';
import type { CallResult, TestApi } from '../../testing/harness.ts';

/** A signed-in register: a seeded merchant, one POS device token and one staff token on it. */
export interface Register {
  readonly api: TestApi;
  readonly m: DemoSeedResult;
  readonly tdb: TenantDb;
  readonly device: string;
  readonly staff: string;
}

export async function signIn(api: TestApi, m: DemoSeedResult, role: 'manager' | 'cashier', deviceIndex = 0): Promise<Register> {
  const device = await api.deviceToken(m, 'pos', deviceIndex);
  return { api, m, tdb: bindTenant(api.deps.db, m.merchant.tenant_database), device, staff: await api.staffLogin(m, role, device) };
}

export const as = (r: Register, role: 'manager' | 'cashier') => r.m.staff.find((s) => s.role === role)!;

export function call(r: Register, method: string, path: string, body?: unknown): Promise<CallResult> {
  return r.api.call(method, `/api${path}`, { token: r.device, deviceKey: true, staffToken: r.staff, body });
}

/** An approval token from the manager's PIN for `permission`, on `r`'s device. */
export async function escalate(r: Register, permission: string): Promise<string> {
  const res = await call(r, 'POST', '/pos/staff/escalate', { manager_pin: as(r, 'manager').pin, permission });
  expect(res.status).toBe(200);
  return res.body.approval_token as string;
}

/** The `fiscal.work-event` jobs queued for `tenantDatabase` and not yet run, oldest first (payloads). */
export async function queuedWorkEvents(api: TestApi, tenantDatabase: string): Promise<{ id: string; payload: Record<string, any> }[]> {
  const rows = await api.deps.db.selectFrom('outbox').select(['id', 'payload']).where('job', '=', FISCAL_WORK_EVENT_JOB).where('relayed_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => ({ id: r.id, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, any> })).filter((r) => r.payload.tenant_database === tenantDatabase);
}

/**
 * What the worker does with the merchant's queued work events (`fiscal.work-event`, signed through
 * `signWorkEvent`), for route tests that run no worker: signs them in queue order and marks their
 * outbox rows relayed. Returns each outcome.
 */
export async function runQueuedWorkEvents(api: TestApi, tenantDatabase: string): Promise<WorkEventOutcome[]> {
  const outcomes: WorkEventOutcome[] = [];
  for (const { id, payload: p } of await queuedWorkEvents(api, tenantDatabase)) {
    const e = { kind: p.kind, sessionId: p.session_id, staffId: p.staff_id, deviceId: p.device_id, locationId: p.location_id };
    outcomes.push(await signWorkEvent(bindTenant(api.deps.db, tenantDatabase), api.deps.fiscal, e, api.deps.clock.now()));
    await api.deps.db.updateTable('outbox').set({ relayed_at: new Date() }).where('id', '=', id).execute();
  }
  return outcomes;
}

/** A catalog line of `name`. */
export function line(r: Register, name: string, qty = 1, extra: Record<string, unknown> = {}) {
  const it = r.m.items.find((i) => i.name === name)!;
  return { uuid: crypto.randomUUID(), item_id: it.id, qty, unit_price: it.unit_price, price_source: 'catalog', modifiers: [], ...extra };
}

/** Creates an order with `lines` and settles it with `tender`; returns the settled order resource. */
export async function sell(r: Register, lines: unknown[], tender: unknown, order: { approval_token?: string } = {}): Promise<{ id: string; transaction_id: string; body: any }> {
  const id = crypto.randomUUID();
  const put = await call(r, 'PUT', `/pos/orders/${id}`, { lines, ...order });
  expect(put.status).toBe(200);
  const settled = await call(r, 'POST', `/pos/orders/${id}/settle`, tender);
  if (settled.status !== 200) throw new Error(`settle failed: ${settled.status} ${settled.text}`);
  return { id, transaction_id: settled.body.transaction_id as string, body: settled.body };
}

/** Journal rows of a subject. */
export function journalOf(r: Register, type: string, id: string) {
  return r.tdb.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', type).where('subject_id', '=', id).orderBy('seq').execute();
}
