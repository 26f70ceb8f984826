import { createHash } from 'node:crypto';
import type { Selectable } from 'kysely';
import { withWriteRetry, type TenantDb, type TenantTables } from '@pos/db';
import { AppError } from '@pos/kernel';
import { randomSecret } from '../../security/passwords.ts';
import { queueWorkEvent, tenantDatabaseOf } from './sign-work-event.ts';

/** Spec 2 section 5: staff tokens expire after 12 hours. */
export const STAFF_TOKEN_TTL_MS = 12 * 3600 * 1000;
export const INVALID_STAFF_TOKEN = 'Invalid POS staff token';

export type StaffRecord = Selectable<TenantTables['staff_credentials']>;
export interface StaffSession {
  sessionId: string;
  staff: StaffRecord;
  /** When the session stops being valid (a cached session is checked against it on every use). */
  expiresAt?: Date;
}

export const hashStaffToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Opens a session for `staff` on `device`; the opaque token is returned once, only its hash is stored.
 * The fiscal work-in event is queued in the same transaction (the worker signs it).
 */
export async function openStaffSession(tdb: TenantDb, input: { staffId: string; deviceId: string; locationId: string; now: Date }): Promise<{ token: string; sessionId: string; expiresAt: Date }> {
  const token = randomSecret(32);
  const sessionId = Bun.randomUUIDv7();
  const expiresAt = new Date(input.now.getTime() + STAFF_TOKEN_TTL_MS);
  const tenantDatabase = tenantDatabaseOf(tdb);
  await withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      await tx
        .insertInto('pos_staff_sessions')
        .values({ id: sessionId, staff_id: input.staffId, device_id: input.deviceId, location_id: input.locationId, token_hash: hashStaffToken(token), created_at: input.now, expires_at: expiresAt })
        .execute();
      await queueWorkEvent(tx, tenantDatabase, { kind: 'work_in', sessionId, staffId: input.staffId, deviceId: input.deviceId, locationId: input.locationId });
    }),
  );
  return { token, sessionId, expiresAt };
}

/**
 * `X-Pos-Staff-Token`: a live session of this device whose member still exists, else 401
 * `Invalid POS staff token` (the client then clears the staff and returns to the PIN pad).
 */
export async function resolveStaffSession(tdb: TenantDb, token: string | undefined, deviceId: string, now: Date): Promise<StaffSession> {
  if (!token) throw new AppError('unauthenticated', INVALID_STAFF_TOKEN);
  const row = await tdb
    .selectFrom('pos_staff_sessions')
    .innerJoin('staff_credentials', 'staff_credentials.id', 'pos_staff_sessions.staff_id')
    .selectAll('staff_credentials')
    .select(['pos_staff_sessions.id as session_id', 'pos_staff_sessions.expires_at as session_expires_at'])
    .where('pos_staff_sessions.token_hash', '=', hashStaffToken(token))
    .where('pos_staff_sessions.device_id', '=', deviceId)
    .where('pos_staff_sessions.ended_at', 'is', null)
    .where('pos_staff_sessions.expires_at', '>', now)
    .where('staff_credentials.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new AppError('unauthenticated', INVALID_STAFF_TOKEN);
  const { session_id, session_expires_at, ...staff } = row;
  return { sessionId: session_id, staff, expiresAt: session_expires_at };
}

/** Ends the session (pin-logout) and queues its fiscal work-out event in the same transaction; idempotent. */
export async function endStaffSession(tdb: TenantDb, sessionId: string, now: Date): Promise<void> {
  const tenantDatabase = tenantDatabaseOf(tdb);
  await withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      const ended = await tx
        .updateTable('pos_staff_sessions')
        .set({ ended_at: now })
        .where('id', '=', sessionId)
        .where('ended_at', 'is', null)
        .returning(['staff_id', 'device_id', 'location_id'])
        .executeTakeFirst();
      if (ended) await queueWorkEvent(tx, tenantDatabase, { kind: 'work_out', sessionId, staffId: ended.staff_id, deviceId: ended.device_id, locationId: ended.location_id });
    }),
  );
}

/** A staff session ended by something other than its own pin-logout (its work-out is queued with the end). */
export interface EndedStaffSession {
  sessionId: string;
  staffId: string;
  deviceId: string;
  locationId: string;
}

/**
 * Ends every live staff session of a device or of a staff member, in `tx` (the transaction of the
 * change that ends them: device logout, re-activation or move; credential deletion), and queues each
 * one's fiscal work-out event as pin-logout does. Their tokens answer 401 from then on.
 */
export async function endLiveStaffSessions(tx: TenantDb, tenantDatabase: string, of: { deviceId: string } | { staffId: string }, now: Date): Promise<EndedStaffSession[]> {
  const ended = await tx
    .updateTable('pos_staff_sessions')
    .set({ ended_at: now })
    .$call((q) => ('deviceId' in of ? q.where('device_id', '=', of.deviceId) : q.where('staff_id', '=', of.staffId)))
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'staff_id', 'device_id', 'location_id'])
    .execute();
  const sessions = ended.map((s) => ({ sessionId: s.id, staffId: s.staff_id, deviceId: s.device_id, locationId: s.location_id }));
  for (const s of sessions) await queueWorkEvent(tx, tenantDatabase, { kind: 'work_out', ...s });
  return sessions;
}
