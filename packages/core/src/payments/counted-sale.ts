import { sql, type RawBuilder } from 'kysely';

/**
 * A marketplace order its marketplace cancelled after paying (channel `delivery`, status `Complete`,
 * order status `Cancelled`; the refund is the marketplace's): no sale. The sales reports and the
 * back-office transaction stats leave its money out. `table` is the alias of `transactions`.
 */
export const cancelledMarketplaceOrder = (table: string): RawBuilder<boolean> =>
  sql<boolean>`(${sql.ref(`${table}.channel`)} = 'delivery' and ${sql.ref(`${table}.order_status`)} is not distinct from 'Cancelled')`;
