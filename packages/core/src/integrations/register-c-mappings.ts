import { errors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import { isUniqueViolation, type TenantDb } from '@pos/db';
import { logActivity } from '../activity/log-activity.ts';
import { locationExists } from '../auth/auth-records.ts';
import { requireMerchantConnection, type MerchantIntegrationScope } from './merchant-integrations.ts';

/**
 * register-c location mappings (spec 1 "register-c", merchant level): which register-c location each
 * of the merchant's locations maps to, kept in central `register_c_mappings`. A location of another
 * merchant (or none) is a 404; without a register-c connection a write is a 404 on the integration.
 */

export interface RegisterCMappingView {
  upvendo_location_id: string;
  register_c_location_id: string;
  status: 'active' | 'paused';
  updated_at: string;
}

type Row = { location_id: string; register_c_location_id: string; status: string; updated_at: Date | string };
const view = (r: Row): RegisterCMappingView => ({
  upvendo_location_id: r.location_id,
  register_c_location_id: r.register_c_location_id,
  status: r.status as 'active' | 'paused',
  updated_at: new Date(r.updated_at).toISOString(),
});

async function ownLocation(tdb: TenantDb, id: string): Promise<string> {
  if (!isUuid(id) || !(await locationExists(tdb, id))) throw errors.notFound('location');
  return id;
}

export async function listRegisterCMappings(scope: Pick<MerchantIntegrationScope, 'db' | 'merchant'>): Promise<RegisterCMappingView[]> {
  const rows = await scope.db.selectFrom('register_c_mappings').selectAll().where('merchant_id', '=', scope.merchant.id).orderBy('created_at').orderBy('location_id').execute();
  return rows.map(view);
}

/** Creates or updates the mapping; a register-c location mapped to another location is 422. */
export async function saveRegisterCMapping(scope: MerchantIntegrationScope, id: string, registerCLocationId: string): Promise<RegisterCMappingView> {
  const { db, tdb, merchant, now } = scope;
  const locationId = await ownLocation(tdb, id);
  const conn = await requireMerchantConnection(scope, 'register-c');
  const taken = await db
    .selectFrom('register_c_mappings')
    .select('location_id')
    .where('connection_id', '=', conn.connectionId)
    .where('register_c_location_id', '=', registerCLocationId)
    .where('location_id', '!=', locationId)
    .executeTakeFirst();
  const mappedElsewhere = () => errors.field('register_c_location_id', 'The register-c location is already mapped to another location.');
  if (taken) throw mappedElsewhere();
  const row = await db
    .insertInto('register_c_mappings')
    .values({ merchant_id: merchant.id, location_id: locationId, connection_id: conn.connectionId, register_c_location_id: registerCLocationId, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'location_id']).doUpdateSet({ connection_id: conn.connectionId, register_c_location_id: registerCLocationId, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow()
    // Mapped to another location between the check and this write (before: a 500).
    .catch((e: unknown) => {
      if (isUniqueViolation(e, 'register_c_mappings_external')) throw mappedElsewhere();
      throw e;
    });
  await logActivity(tdb, { userId: scope.userId, action: 'updated', subject: 'register_c_mapping', properties: { location_id: locationId, register_c_location_id: registerCLocationId } });
  return view(row);
}

/** Removes the mapping (404 `mapping` when there is none). */
export async function deleteRegisterCMapping(scope: MerchantIntegrationScope, id: string): Promise<void> {
  const { db, tdb, merchant } = scope;
  const locationId = await ownLocation(tdb, id);
  const mapped = await db.selectFrom('register_c_mappings').select('location_id').where('merchant_id', '=', merchant.id).where('location_id', '=', locationId).executeTakeFirst();
  if (!mapped) throw errors.notFound('mapping');
  await db.deleteFrom('register_c_mappings').where('merchant_id', '=', merchant.id).where('location_id', '=', locationId).execute();
  await logActivity(tdb, { userId: scope.userId, action: 'deleted', subject: 'register_c_mapping', properties: { location_id: locationId } });
}

/** Pauses or resumes the mapping (404 `mapping` when there is none). */
export async function setRegisterCMappingStatus(scope: MerchantIntegrationScope, id: string, status: 'active' | 'paused'): Promise<RegisterCMappingView> {
  const { db, tdb, merchant } = scope;
  const locationId = await ownLocation(tdb, id);
  const row = await db
    .updateTable('register_c_mappings')
    .set({ status, updated_at: scope.now })
    .where('merchant_id', '=', merchant.id)
    .where('location_id', '=', locationId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw errors.notFound('mapping');
  await logActivity(tdb, { userId: scope.userId, action: status === 'paused' ? 'paused' : 'resumed', subject: 'register_c_mapping', properties: { location_id: locationId } });
  return view(row);
}
