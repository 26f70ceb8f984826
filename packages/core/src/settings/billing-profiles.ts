import type { Selectable } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Billing profiles (spec 1 "Settings"): a named billing identity; its card-a customer owns the
 * subscriptions kept locally in `billing_subscriptions` (synchronised by card-a webhooks). A profile
 * whose subscriptions still serve cannot be deleted.
 */

export const PROFILE_HAS_SUBSCRIPTIONS = 'The billing profile has active subscriptions; cancel them before deleting it.';

type Row = Selectable<TenantTables['billing_profiles']>;
type SubRow = Selectable<TenantTables['billing_subscriptions']>;

export interface BillingProfileView {
  id: string;
  name: string;
  card_a_customer_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BillingSubscriptionView {
  id: string;
  provider_subscription_id: string;
  location_id: string;
  price_id: string | null;
  device_ids: string[];
  status: string;
  current_period_end: string | null;
  cancel_reason: string | null;
  canceled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Statuses in which card-a still serves (and collects for) a subscription. */
const SERVING = ['active', 'trialing', 'past_due'];

const view = (r: Row): BillingProfileView => ({
  id: r.id,
  name: r.name,
  card_a_customer_id: r.card_a_customer_id,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export const subscriptionView = (s: SubRow): BillingSubscriptionView => ({
  id: s.id,
  provider_subscription_id: s.provider_subscription_id,
  location_id: s.location_id,
  price_id: s.price_id,
  device_ids: s.device_ids ?? [],
  status: s.status,
  current_period_end: s.current_period_end?.toISOString() ?? null,
  cancel_reason: s.cancel_reason,
  canceled_at: s.canceled_at?.toISOString() ?? null,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at.toISOString(),
});

export async function findBillingProfile(db: TenantDb | TenantTx, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw errors.notFound('billing profile');
  let q = db.selectFrom('billing_profiles').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw errors.notFound('billing profile');
  return row;
}

export async function listBillingProfiles(tdb: TenantDb): Promise<BillingProfileView[]> {
  return (await tdb.selectFrom('billing_profiles').selectAll().orderBy('name').orderBy('id').execute()).map(view);
}

/** `GET /billing-profiles/options`: select options `{value: id, label: name}`, by name. */
export async function billingProfileOptions(tdb: TenantDb): Promise<{ value: string; label: string }[]> {
  const rows = await tdb.selectFrom('billing_profiles').select(['id', 'name']).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}

export async function showBillingProfile(tdb: TenantDb, id: string): Promise<BillingProfileView> {
  return view(await findBillingProfile(tdb, id));
}

export function createBillingProfile(tdb: TenantDb, userId: string, name: string): Promise<BillingProfileView> {
  return inTenantTx(tdb, async (tx) => {
    const row = await tx.insertInto('billing_profiles').values({ id: Bun.randomUUIDv7(), name: name.trim(), card_a_customer_id: null }).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'created', subject: 'billing_profile', subjectId: row.id, properties: { name: row.name } });
    return view(row);
  });
}

export function renameBillingProfile(tdb: TenantDb, userId: string, id: string, name: string): Promise<BillingProfileView> {
  return inTenantTx(tdb, async (tx) => {
    const row = await findBillingProfile(tx, id, true);
    const updated = await tx.updateTable('billing_profiles').set({ name: name.trim(), updated_at: new Date() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'updated', subject: 'billing_profile', subjectId: row.id, properties: { fields: ['name'] } });
    return view(updated);
  });
}

export async function deleteBillingProfile(tdb: TenantDb, userId: string, id: string): Promise<void> {
  await inTenantTx(tdb, async (tx) => {
    const row = await findBillingProfile(tx, id, true);
    if (row.card_a_customer_id) {
      const serving = await tx
        .selectFrom('billing_subscriptions')
        .select('id')
        .where('customer_id', '=', row.card_a_customer_id)
        .where('status', 'in', SERVING)
        .limit(1)
        .executeTakeFirst();
      if (serving) throw errors.businessRule(PROFILE_HAS_SUBSCRIPTIONS);
    }
    await tx.deleteFrom('billing_profiles').where('id', '=', row.id).execute();
    await logActivity(tx, { userId, action: 'deleted', subject: 'billing_profile', subjectId: row.id, properties: { name: row.name } });
  });
}

/** The profile's subscriptions (local records), newest first; none before a card-a customer is attached. */
export async function billingProfileSubscriptions(tdb: TenantDb, id: string): Promise<BillingSubscriptionView[]> {
  const row = await findBillingProfile(tdb, id);
  if (!row.card_a_customer_id) return [];
  const subs = await tdb.selectFrom('billing_subscriptions').selectAll().where('customer_id', '=', row.card_a_customer_id).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
  return subs.map(subscriptionView);
}
