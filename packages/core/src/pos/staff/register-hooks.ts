import type Redis from 'ioredis';
import type { Clock, Logger } from '@pos/kernel';

/** What the staff use cases need from the running service (the API's dependencies satisfy it). */
export interface RegisterStaffDeps {
  readonly redis: Redis;
  readonly clock: Clock;
  readonly log: Logger;
  readonly config: { readonly PIN_PEPPER: string };
}
