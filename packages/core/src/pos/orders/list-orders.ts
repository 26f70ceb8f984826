import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { toOrderResource, type OrderResource, type StoredOrderState } from './order-resource.ts';
import type { RegisterActor } from '../register-actor.ts';

/**
 * The `state` filter of `GET /pos/orders` (spec 2 rule 6: required, other values invalid):
 * - `open`: OPEN orders (drafts and fired orders still to be paid);
 * - `settling`: SETTLING orders, whose settlement is in flight with a remote fiscal data module
 *   (the pending journal entry is committed, the module has not answered yet). With the in-process
 *   signer a settle signs inside its own transaction, so this list is empty;
 * - `settled`: SETTLED orders.
 * VOIDED orders are never listed.
 */
export const ORDER_LIST_STATES = { open: 'OPEN', settling: 'SETTLING', settled: 'SETTLED' } as const satisfies Record<string, StoredOrderState>;
export type OrderListState = keyof typeof ORDER_LIST_STATES;

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

export interface ListOrdersInput {
  readonly state?: string;
  readonly page?: number;
  readonly per_page?: number;
}

const isListState = (s: unknown): s is OrderListState => typeof s === 'string' && Object.hasOwn(ORDER_LIST_STATES, s);

/** `GET /pos/orders?state=...&page&per_page`: `{data, total}` of the register's location, newest change first. */
export async function listOrders(db: TenantDb, actor: Pick<RegisterActor, 'locationId'>, input: ListOrdersInput): Promise<{ data: OrderResource[]; total: number }> {
  if (input.state === undefined || input.state === '') throw errors.field('state', 'The state field is required.');
  if (!isListState(input.state)) throw errors.field('state', 'The selected state is invalid. Accepted: open, settling, settled.');
  const page = Math.max(1, Math.trunc(input.page ?? 1));
  const perPage = Math.min(MAX_PER_PAGE, Math.max(1, Math.trunc(input.per_page ?? DEFAULT_PER_PAGE)));
  const base = db.selectFrom('pos_orders').where('location_id', '=', actor.locationId).where('state', '=', ORDER_LIST_STATES[input.state]);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'asc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toOrderResource), total: Number(count.n) };
}
