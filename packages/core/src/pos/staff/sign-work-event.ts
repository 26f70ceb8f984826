import type { TenantDb } from '@pos/db';
import { AppError, type Logger } from '@pos/kernel';
import type { FiscalService } from '../../fiscal/fiscal-service.ts';
import { activeFdmFor } from '../../fiscal/active-fdm.ts';

export interface WorkEventInput {
  kind: 'work_in' | 'work_out';
  staffId: string;
  deviceId: string;
  locationId: string;
  sessionId: string;
}

/**
 * Pin-login signs a work-in and pin-logout a work-out event (social label S). A location without a
 * fiscal enrolment has nothing to sign with; an unreachable remote module leaves a pending journal
 * entry for the recovery job, and the staff session still opens or closes.
 */
export async function signWorkEvent(fiscal: FiscalService, tdb: TenantDb, e: WorkEventInput, log: Logger): Promise<void> {
  if (!(await activeFdmFor(tdb, e.locationId))) return;
  try {
    await fiscal.signEvent(tdb, {
      locationId: e.locationId,
      deviceId: e.deviceId,
      employeeId: e.staffId,
      subject: { type: 'pos_staff_session', id: `${e.sessionId}:${e.kind}` },
      build: (common) => ({ ...common, kind: e.kind }),
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'unavailable') {
      log.warn('work event left pending for the fiscal module', { kind: e.kind, session: e.sessionId });
      return;
    }
    throw err;
  }
}
