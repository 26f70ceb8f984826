import { expect } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createTestApi, type CallResult, type TestApi } from './harness.ts';

/** A register (the demo merchant's first POS device) with its cashier and manager signed in. */
export interface RegisterSession {
  readonly api: TestApi;
  readonly m: DemoSeedResult;
  readonly tdb: TenantDb;
  readonly device: string;
  readonly cashier: string;
  readonly manager: string;
}

export async function openRegisterSession(seedPrefix: string): Promise<RegisterSession> {
  const api = await createTestApi();
  const m = await api.seed(seedPrefix);
  const device = await api.deviceToken(m, 'pos', 0);
  const cashier = await api.staffLogin(m, 'cashier', device);
  const manager = await api.staffLogin(m, 'manager', device);
  return { api, m, tdb: bindTenant(api.deps.db, m.merchant.tenant_database), device, cashier, manager };
}

/**
 * The calls register tests make, bound to the session `beforeAll` opens (read through `session()` at
 * call time). Staff and device default to the cashier on the session's register.
 */
export function registerCalls(session: () => RegisterSession) {
  const s = session;
  const item = (name: string) => s().m.items.find((i) => i.name === name)!;
  const pinOf = (role: 'manager' | 'cashier') => s().m.staff.find((x) => x.role === role)!.pin;
  /** A catalog line of `name`, qty `qty`, at its catalog price. */
  const line = (name: string, qty = 1, extra: Record<string, unknown> = {}) => {
    const it = item(name);
    return { uuid: crypto.randomUUID(), item_id: it.id, qty, unit_price: it.unit_price, price_source: 'catalog', modifiers: [], ...extra };
  };
  const put = (id: string, body: Record<string, unknown>, staffToken = s().cashier, token = s().device): Promise<CallResult> =>
    s().api.call('PUT', `/api/pos/orders/${id}`, { token, deviceKey: true, staffToken, body });
  const post = (path: string, staffToken = s().cashier, body?: unknown, token = s().device): Promise<CallResult> => s().api.call('POST', path, { token, deviceKey: true, staffToken, body });
  const get = (path: string, staffToken = s().cashier, token = s().device): Promise<CallResult> => s().api.call('GET', path, { token, deviceKey: true, staffToken });
  /** A manager's approval of `permission` for `staffToken` (the manager's PIN at the register). */
  const escalate = async (permission: string, staffToken = s().cashier): Promise<string> => {
    const r = await post('/api/pos/staff/escalate', staffToken, { manager_pin: pinOf('manager'), permission });
    expect(r.status).toBe(200);
    return r.body.approval_token as string;
  };
  /** Creates an order with the given lines; answers its id. */
  const create = async (lines: unknown[], staffToken = s().cashier): Promise<string> => {
    const id = crypto.randomUUID();
    const r = await put(id, { lines }, staffToken);
    expect(r.status).toBe(200);
    return id;
  };
  return { item, pinOf, line, put, post, get, escalate, create };
}
