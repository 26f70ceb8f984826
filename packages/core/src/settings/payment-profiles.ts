import type { Selectable } from 'kysely';
import { errors } from '@pos/kernel';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';
import { reportedInPersonProvider } from '@pos/domain';
import { isUniqueViolation } from '@pos/db';
import { lockDefaults, switchDefault } from './default-switch.ts';

/**
 * Payment profiles (spec 1 "Settings"): a named payment setup holding the card-a connected account and
 * the card-b account. The first profile is the default; the default cannot be deleted; `default` moves
 * the flag.
 */

export const DEFAULT_PAYMENT_PROFILE_NOT_DELETABLE = 'The default payment profile cannot be deleted.';

type Row = Selectable<TenantTables['payment_profiles']>;

export interface PaymentProfileView {
  id: string;
  name: string;
  is_default: boolean;
  card_a_account_id: string | null;
  card_b_account_id: string | null;
  /** The card-a account's `charges_enabled`, as card-a last reported it. */
  card_a_charges_enabled: boolean;
  /** When card-b reported the card-b account connected (event 8193), or null. */
  card_b_connected_at: string | null;
  /** The card-b account's verification (KYC) as card-b last reported it (event 8194); null until it did. */
  card_b_verified: boolean | null;
  /** What the profile reports to its locations' kiosks (spec 3 "Provider choice"). */
  in_person_provider: 'card-a' | 'card-b' | null;
  created_at: string;
  updated_at: string;
}

const view = (r: Row): PaymentProfileView => ({
  id: r.id,
  name: r.name,
  is_default: r.is_default,
  card_a_account_id: r.card_a_account_id,
  card_b_account_id: r.card_b_account_id,
  card_a_charges_enabled: r.card_a_charges_enabled,
  card_b_connected_at: r.card_b_connected_at?.toISOString() ?? null,
  card_b_verified: r.card_b_verified,
  in_person_provider: reportedInPersonProvider(r),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

export async function findPaymentProfile(db: TenantDb | TenantTx, id: string, lock = false): Promise<Row> {
  if (!isUuid(id)) throw errors.notFound('payment profile');
  let q = db.selectFrom('payment_profiles').selectAll().where('id', '=', id);
  if (lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw errors.notFound('payment profile');
  return row;
}

export async function listPaymentProfiles(tdb: TenantDb): Promise<PaymentProfileView[]> {
  return (await tdb.selectFrom('payment_profiles').selectAll().orderBy('is_default', 'desc').orderBy('name').orderBy('id').execute()).map(view);
}

/** `GET /payment-profiles/options`: select options `{value: id, label: name, is_default}`, by name. */
export async function paymentProfileOptions(tdb: TenantDb): Promise<{ value: string; label: string; is_default: boolean }[]> {
  const rows = await tdb.selectFrom('payment_profiles').select(['id', 'name', 'is_default']).orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name, is_default: r.is_default }));
}

export async function showPaymentProfile(tdb: TenantDb, id: string): Promise<PaymentProfileView> {
  return view(await findPaymentProfile(tdb, id));
}

export async function createPaymentProfile(tdb: TenantDb, userId: string, name: string): Promise<PaymentProfileView> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await inTenantTx(tdb, async (tx) => {
        const first = !(await tx.selectFrom('payment_profiles').select('id').limit(1).executeTakeFirst());
        const row = await tx
          .insertInto('payment_profiles')
          .values({ id: Bun.randomUUIDv7(), name: name.trim(), is_default: first, card_a_account_id: null, card_b_account_id: null })
          .returningAll()
          .executeTakeFirstOrThrow();
        await logActivity(tx, { userId, action: 'created', subject: 'payment_profile', subjectId: row.id, properties: { name: row.name } });
        return view(row);
      });
    } catch (e) {
      // Two first profiles at once: the partial unique index keeps one default; the other runs again.
      if (attempt === 0 && isUniqueViolation(e, 'payment_profiles_one_default')) continue;
      throw e;
    }
  }
}

export function renamePaymentProfile(tdb: TenantDb, userId: string, id: string, name: string): Promise<PaymentProfileView> {
  return inTenantTx(tdb, async (tx) => {
    const row = await findPaymentProfile(tx, id, true);
    const updated = await tx.updateTable('payment_profiles').set({ name: name.trim(), updated_at: new Date() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'updated', subject: 'payment_profile', subjectId: row.id, properties: { fields: ['name'] } });
    return view(updated);
  });
}

export function setDefaultPaymentProfile(tdb: TenantDb, userId: string, id: string): Promise<PaymentProfileView> {
  return inTenantTx(tdb, async (tx) => {
    await lockDefaults(tx, 'payment_profiles');
    const row = await findPaymentProfile(tx, id, true);
    if (!row.is_default) {
      await switchDefault(tx, 'payment_profiles', row.id, new Date());
      await logActivity(tx, { userId, action: 'set_default', subject: 'payment_profile', subjectId: row.id });
    }
    return view(await tx.selectFrom('payment_profiles').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow());
  });
}

export async function deletePaymentProfile(tdb: TenantDb, userId: string, id: string): Promise<void> {
  await inTenantTx(tdb, async (tx) => {
    const row = await findPaymentProfile(tx, id, true);
    if (row.is_default) throw errors.businessRule(DEFAULT_PAYMENT_PROFILE_NOT_DELETABLE);
    await tx.deleteFrom('payment_profiles').where('id', '=', row.id).execute();
    await logActivity(tx, { userId, action: 'deleted', subject: 'payment_profile', subjectId: row.id, properties: { name: row.name } });
  });
}
