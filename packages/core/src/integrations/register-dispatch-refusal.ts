/**
 * A register dispatch that cannot succeed however often it runs (an item the register does not know,
 * a payment method nobody mapped): the dispatch records it as `failed` with this message instead of
 * retrying. Kept apart from dispatch-register.ts so a dispatcher can throw it without an import cycle.
 */
export class RegisterDispatchRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegisterDispatchRefusal';
  }
}
