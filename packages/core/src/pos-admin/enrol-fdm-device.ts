import { AppError, errors } from '@pos/kernel';
import { GKS_REGIME } from '../fiscal/active-fdm.ts';
import { requireFiscalIdentity } from '../fiscal/sign-event.ts';
import { logActivity } from '../activity/log-activity.ts';
import { lockLocation } from '../settings/locations.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { ACTIVE_FDM_EXISTS, FDM_ID_TAKEN, presentFdmDevice, REMOTE_NOT_CONFIGURED, type FdmDeviceView } from './fdm-device-records.ts';
import { centralIn, isUniqueViolation, type TenantTx } from '@pos/db';

export interface EnrolFdmDeviceInput {
  fdm_id: string;
  mode: 'software' | 'remote';
}

/** What enrolment needs of the fiscal service: whether a remote module is configured for a device. */
export interface RemoteSignerLookup {
  readonly signers: { remote(fdmId: string): unknown };
}

/**
 * 422 `mode` when the device is remote and no remote module is configured for it (FDM_REMOTE_URL and
 * the device's shared secret): the register could not sign a single sale with it.
 */
function requireRemoteConfigured(fiscal: RemoteSignerLookup, fdmId: string): void {
  try {
    fiscal.signers.remote(fdmId);
  } catch (e) {
    if (e instanceof AppError && e.reason === 'fiscal_not_configured') throw errors.field('mode', REMOTE_NOT_CONFIGURED);
    throw e;
  }
}

/** The central tables, reached from inside a tenant transaction (its builder would add the tenant schema). */
const central = (tx: TenantTx) => centralIn(tx);

/**
 * Registers `fdmId` platform-wide for the merchant (central `fdm_registry`), in the enrolment's
 * transaction. A module id is not the merchant's to name freely: a software module's signing key is
 * derived from the id alone and a remote module is configured by it, so an id another merchant
 * enrolled is refused with the same 409 as one of this merchant's own. Answers false when taken.
 */
async function registerFdmId(tx: TenantTx, merchantId: string, fdmId: string): Promise<boolean> {
  const c = central(tx);
  await c.insertInto('fdm_registry').values({ fdm_id: fdmId, merchant_id: merchantId }).onConflict((oc) => oc.column('fdm_id').doNothing()).execute();
  const owner = await c.selectFrom('fdm_registry').select('merchant_id').where('fdm_id', '=', fdmId).executeTakeFirst();
  return owner?.merchant_id === merchantId;
}

/**
 * `POST /back-office/pos/{locationId}/fdm-devices` (MANAGE_POS_CONFIGURATION): enrols a fiscal data
 * module of the Belgian regime (`gks`) as the location's active one. One active enrolment per
 * location: 409 while another is active (checked under a lock on the location row); an `fdm_id`
 * already enrolled (active or retired: a module's journal is never restarted), here or by another
 * merchant (central `fdm_registry`), is 409 as well.
 */
export async function enrolFdmDevice(scope: PosAdminScope, fiscal: RemoteSignerLookup, locationId: string, input: EnrolFdmDeviceInput): Promise<FdmDeviceView> {
  const fdmId = input.fdm_id.trim();
  if (input.mode === 'remote') requireRemoteConfigured(fiscal, fdmId);
  try {
    const row = await inTenantTx(scope.tdb, async (tx) => {
      await lockLocation(tx, locationId, 'update');
      // A module signs nothing without the location's VAT and establishment numbers: refused here, not at
      // the register's first fire or sale.
      const identity = await tx.selectFrom('locations').select(['timezone', 'vat_no', 'est_no']).where('id', '=', locationId).executeTakeFirstOrThrow();
      requireFiscalIdentity(identity);
      const active = await tx.selectFrom('fdm_devices').select('id').where('location_id', '=', locationId).where('status', '=', 'active').executeTakeFirst();
      if (active) throw errors.conflict(ACTIVE_FDM_EXISTS, { reason: 'fdm_active' });
      const taken = await tx.selectFrom('fdm_devices').select('id').where('fdm_id', '=', fdmId).executeTakeFirst();
      if (taken || !(await registerFdmId(tx, scope.merchant.id, fdmId))) throw errors.conflict(FDM_ID_TAKEN, { reason: 'fdm_enrolled' });
      const created = await tx
        .insertInto('fdm_devices')
        .values({ id: Bun.randomUUIDv7(), location_id: locationId, fdm_id: fdmId, regime: GKS_REGIME, status: 'active', mode: input.mode, created_at: scope.now })
        .returningAll()
        .executeTakeFirstOrThrow();
      await logActivity(tx, { userId: scope.userId, action: 'enrolled', subject: 'fdm_device', subjectId: created.id, properties: { location_id: locationId, fdm_id: fdmId, mode: input.mode } });
      return created;
    });
    return presentFdmDevice(row);
  } catch (e) {
    if (isUniqueViolation(e)) throw errors.conflict(FDM_ID_TAKEN, { reason: 'fdm_enrolled' });
    throw e;
  }
}
