/**
 * A card-b webhook body (PROTOCOLS.md "card-b"): `EventData` inside the envelope card-b sends. The
 * simulator sends these; tests build the events card-b would send (or forge) with the same function.
 * `Amount` is in major units, as card-b's webhooks carry it.
 */
export function cardBEventBody(eventTypeId: number, data: Record<string, unknown>): Record<string, unknown> {
  return {
    EventTypeId: eventTypeId,
    EventData: { ParentId: null, CurrencyCode: '978', TransactionTypeId: 5, Tags: [], ...data },
    Created: new Date().toISOString(),
    CorrelationId: crypto.randomUUID(),
    MessageId: crypto.randomUUID(),
    MessageTypeId: 512,
  };
}
