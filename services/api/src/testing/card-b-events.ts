import { cardBEventBody } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';

/** A card-b order code no other test's event shares (duplicate detection hashes it). */
const orderCode = () => `77${Date.now()}${Math.floor(Math.random() * 1000)}`.slice(0, 18);

/**
 * The payment-created event card-b sends for a kiosk's terminal sale (the seed's kiosk terminal, the
 * first location's `{locationId}:{orderNo}`), raw as it arrives; `over` replaces or adds fields.
 */
export function kioskCardBPayment(m: DemoSeedResult, t: { order_no: number; total: number }, over: Record<string, unknown> = {}): string {
  return JSON.stringify(
    cardBEventBody(1796, {
      Amount: t.total / 100,
      OrderCode: orderCode(),
      StatusId: 'F',
      TransactionId: crypto.randomUUID(),
      MerchantTrns: `${m.locations[0]!.id}:${t.order_no}`,
      CustomerTrns: `Order ${t.order_no}`,
      TerminalId: m.kiosk.card_b_terminal_id,
      ...over,
    }),
  );
}

/** A reversal of `parentId` (its own order code, as card-b gives each); `amount` in major units. */
export function cardBReversal(m: DemoSeedResult, parentId: string, amount: number, eventId: string = crypto.randomUUID()): string {
  return JSON.stringify(cardBEventBody(1797, { Amount: amount, OrderCode: `R${parentId}`, StatusId: 'F', TransactionId: eventId, ParentId: parentId, MerchantTrns: `${m.locations[0]!.id}:0`, TransactionTypeId: 7 }));
}
