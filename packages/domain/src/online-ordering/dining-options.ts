/**
 * The dining options an online order may take: the ones its location's online ordering settings offer
 * (`pickup`, `delivery`). An order for an option the location does not offer would be taken and paid
 * with nobody to hand it over.
 */
export type DiningOption = 'Pickup' | 'Delivery';

export const PICKUP_NOT_OFFERED = 'This location does not offer pickup for online orders.';
export const DELIVERY_NOT_OFFERED = 'This location does not offer delivery for online orders.';

/** Why `option` cannot be ordered with these settings (the `dining_option` field's message), or null. */
export function diningOptionRefusal(option: DiningOption, offered: { readonly pickup: boolean; readonly delivery: boolean }): string | null {
  if (option === 'Pickup') return offered.pickup ? null : PICKUP_NOT_OFFERED;
  return offered.delivery ? null : DELIVERY_NOT_OFFERED;
}
