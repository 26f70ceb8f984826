/**
 * Who acts on the register: the device, its location and the signed-in staff member. The one scope
 * every register use case (orders, tills, refunds, business day and reports) works in; the API builds
 * it once per request from the device token and the staff session.
 */
export interface RegisterActor {
  readonly deviceId: string;
  readonly locationId: string;
  readonly staffId: string;
}
