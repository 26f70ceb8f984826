import { errors } from '@pos/kernel';
import type { RegisterCClient } from '@pos/providers/register-c/register-c-client';
import { logActivity } from '../activity/log-activity.ts';
import type { MerchantIntegrationScope } from './merchant-integrations.ts';
import { paymentMapOf, type OurPaymentMethod } from './register-c-admin.ts';
import { registerCAccess, registerCMapping, viaRegisterC, type RegisterCConfig } from './register-c-access.ts';
import { checkView, type RegisterCCheckView } from './register-c-reads.ts';

/**
 * Orders and payments at register-c for a mapped location (`POST /orders/local`, `/orders/to-go`,
 * `/pay`). The caller's `reference` is the idempotency key register-c keys on: the same reference
 * again answers the check it created (or the payment it took) without a second one. A paused
 * mapping takes no orders (409 `mapping_paused`). Money is cents here, decimals at register-c.
 */
export interface RegisterCOrderInput {
  readonly location_id: string;
  readonly reference: string;
  readonly account_profile_code?: string | undefined;
  readonly items: readonly { readonly sku: string; readonly quantity: number }[];
}

async function target(scope: MerchantIntegrationScope, config: RegisterCConfig, locationId: string) {
  const access = await registerCAccess(scope, config);
  const mapping = await registerCMapping(scope, access, locationId);
  if (mapping.status === 'paused') throw errors.conflict('The register-c mapping is paused.', { reason: 'mapping_paused' });
  return { access, mapping };
}

/** The given profile, or register-c's first profile of the order's type. */
async function profileFor(client: RegisterCClient, loc: string, given: string | undefined, type: 'LOCAL' | 'TAKEAWAY'): Promise<string> {
  if (given) return given;
  const p = (await viaRegisterC(() => client.accountProfiles(loc))).find((x) => x.type === type);
  if (!p) throw errors.field('account_profile_code', 'register-c has no account profile for this kind of order: name one.');
  return p.code;
}

export async function createRegisterCLocalOrder(scope: MerchantIntegrationScope, config: RegisterCConfig, input: RegisterCOrderInput & { table_number: number }): Promise<RegisterCCheckView> {
  const { access, mapping } = await target(scope, config, input.location_id);
  const loc = mapping.registerCLocationId;
  const profileCode = await profileFor(access.client, loc, input.account_profile_code, 'LOCAL');
  const check = await viaRegisterC(() => access.client.localOrder(loc, { reference: input.reference, profileCode, tableNumber: input.table_number, items: input.items }));
  await logActivity(scope.tdb, { userId: scope.userId, action: 'created', subject: 'register_c_order', properties: { location_id: mapping.locationId, reference: input.reference, check_id: check.id, kind: 'local' } });
  return checkView(check);
}

export async function createRegisterCToGoOrder(scope: MerchantIntegrationScope, config: RegisterCConfig, input: RegisterCOrderInput & { customer_name?: string | undefined }): Promise<RegisterCCheckView> {
  const { access, mapping } = await target(scope, config, input.location_id);
  const loc = mapping.registerCLocationId;
  const profileCode = await profileFor(access.client, loc, input.account_profile_code, 'TAKEAWAY');
  const check = await viaRegisterC(() => access.client.toGoOrder(loc, { reference: input.reference, profileCode, ...(input.customer_name ? { customerName: input.customer_name } : {}), items: input.items }));
  await logActivity(scope.tdb, { userId: scope.userId, action: 'created', subject: 'register_c_order', properties: { location_id: mapping.locationId, reference: input.reference, check_id: check.id, kind: 'to_go' } });
  return checkView(check);
}

/**
 * Pays `amount_cents` of a register-c check with one of our payment methods, mapped through
 * `PUT /payment-methods` (an unmapped method is 422 on `payment_method`); an unknown check is 404.
 */
export async function payRegisterCCheck(
  scope: MerchantIntegrationScope,
  config: RegisterCConfig,
  input: { location_id: string; check_id: string; reference: string; amount_cents: number; payment_method: OurPaymentMethod },
): Promise<RegisterCCheckView> {
  const { access, mapping } = await target(scope, config, input.location_id);
  const methodId = paymentMapOf(access.settings)[input.payment_method];
  if (!methodId) throw errors.field('payment_method', 'The payment method is not mapped to a register-c payment method.');
  const check = await viaRegisterC(() => access.client.pay(mapping.registerCLocationId, input.check_id, { reference: input.reference, paymentMethodId: methodId, amountCents: input.amount_cents }), 'check');
  await logActivity(scope.tdb, { userId: scope.userId, action: 'paid', subject: 'register_c_check', properties: { location_id: mapping.locationId, check_id: check.id, reference: input.reference, amount_cents: input.amount_cents, payment_method: input.payment_method } });
  return checkView(check);
}
