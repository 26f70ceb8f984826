import type Redis from 'ioredis';
import type { TenantDb } from '@pos/db';
import type { Clock, Logger } from '@pos/kernel';

/** A staff session that opened or ended on a register. */
export interface StaffSessionEvent {
  staffId: string;
  deviceId: string;
  locationId: string;
  sessionId: string;
}

/** Register side effects of staff sessions (fiscal work-in and work-out), wired where the service starts. */
export interface RegisterHooks {
  staffSignedIn?: (tdb: TenantDb, e: StaffSessionEvent) => Promise<void>;
  staffSignedOut?: (tdb: TenantDb, e: StaffSessionEvent) => Promise<void>;
}

/** What the staff use cases need from the running service (the API's dependencies satisfy it). */
export interface RegisterStaffDeps {
  readonly redis: Redis;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: { readonly PIN_PEPPER: string };
  readonly registerHooks: RegisterHooks;
}
