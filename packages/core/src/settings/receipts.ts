import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import { lockLocation } from './locations.ts';
import type { Access } from '../auth/access.ts';
import { logActivity } from '../activity/log-activity.ts';
import { accessCan } from '../auth/access.ts';
import { inTenantTx } from '../pos-admin/pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Receipt layout per location (spec 1 "Settings": `GET /receipts/{locationId}` open to the location's
 * members, `PUT` needs EDIT_RECEIPTS for that location). A location without a stored layout reads
 * the defaults; the first PUT stores it.
 */
export interface ReceiptSettings {
  location_id: string;
  header: string;
  footer: string;
  show_logo: boolean;
  show_address: boolean;
  show_vat_number: boolean;
  show_order_number: boolean;
  updated_at: string | null;
}

export type ReceiptInput = Partial<Omit<ReceiptSettings, 'location_id' | 'updated_at'>>;

async function requireLocation(tdb: TenantDb, access: Access, locationId: string, permission?: string): Promise<string> {
  const loc = isUuid(locationId) ? await tdb.selectFrom('locations').select('id').where('id', '=', locationId).executeTakeFirst() : undefined;
  if (!loc) throw errors.notFound('location');
  const ok = permission ? accessCan(access, permission, loc.id) : access.allLocations || access.locationIds.has(loc.id);
  if (!ok) throw errors.insufficientPermissions();
  return loc.id;
}

export async function showReceipt(tdb: TenantDb, access: Access, locationId: string): Promise<ReceiptSettings> {
  const id = await requireLocation(tdb, access, locationId);
  const row = await tdb.selectFrom('location_receipts').selectAll().where('location_id', '=', id).executeTakeFirst();
  if (!row) return { location_id: id, header: '', footer: '', show_logo: true, show_address: true, show_vat_number: true, show_order_number: true, updated_at: null };
  return { ...row, updated_at: row.updated_at.toISOString() };
}

export async function updateReceipt(tdb: TenantDb, access: Access, userId: string, locationId: string, input: ReceiptInput): Promise<ReceiptSettings> {
  const id = await requireLocation(tdb, access, locationId, 'EDIT_RECEIPTS');
  const values = { ...input, updated_at: new Date() };
  const row = await inTenantTx(tdb, async (tx) => {
    await lockLocation(tx, id, 'share');
    const r = await tx
      .insertInto('location_receipts')
      .values({ location_id: id, ...values })
      .onConflict((oc) => oc.column('location_id').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action: 'updated', subject: 'receipt', subjectId: id, properties: { fields: Object.keys(input).sort() } });
    return r;
  });
  return { ...row, updated_at: row.updated_at.toISOString() };
}
