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

/** Where a Delivery order goes: the usual parts of a postal address (the body schema bounds each part). */
export interface DeliveryAddress {
  readonly line1: string;
  readonly line2?: string;
  readonly city: string;
  readonly postal_code: string;
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  /** For the courier: floor, door code, ... */
  readonly instructions?: string;
}

export const DELIVERY_ADDRESS_REQUIRED = 'A delivery address is required for a Delivery order.';
export const DELIVERY_ADDRESS_NOT_TAKEN = 'A delivery address is only taken with a Delivery order.';

/**
 * Why the `delivery_address` field cannot go with `option`, or null: a Delivery order needs one (there is
 * nothing to deliver to otherwise), any other order takes none (nobody would deliver it). A part made of
 * spaces only counts as missing.
 */
export function deliveryAddressRefusal(option: string, address: DeliveryAddress | undefined): string | null {
  if (option !== 'Delivery') return address === undefined ? null : DELIVERY_ADDRESS_NOT_TAKEN;
  if (!address || ![address.line1, address.city, address.postal_code, address.country].every((p) => p.trim().length > 0)) return DELIVERY_ADDRESS_REQUIRED;
  return null;
}

/** The address as stored: parts trimmed, empty optional parts left out. */
export function normaliseDeliveryAddress(a: DeliveryAddress): DeliveryAddress {
  const line2 = a.line2?.trim();
  const instructions = a.instructions?.trim();
  return { line1: a.line1.trim(), ...(line2 ? { line2 } : {}), city: a.city.trim(), postal_code: a.postal_code.trim(), country: a.country.toUpperCase(), ...(instructions ? { instructions } : {}) };
}

/** The dining options a kiosk order may take: the ones its location's in-house settings offer (`dine_in`, `takeaway`). */
export type InHouseDiningOption = 'For Here' | 'Takeaway';

export const DINE_IN_NOT_OFFERED = 'This location does not offer eating in.';
export const TAKEAWAY_NOT_OFFERED = 'This location does not offer takeaway.';

/** Why a kiosk order cannot be `option` with these in-house settings (the `dining_option` field's message), or null. */
export function inHouseDiningRefusal(option: InHouseDiningOption, offered: { readonly dine_in: boolean; readonly takeaway: boolean }): string | null {
  if (option === 'For Here') return offered.dine_in ? null : DINE_IN_NOT_OFFERED;
  return offered.takeaway ? null : TAKEAWAY_NOT_OFFERED;
}
