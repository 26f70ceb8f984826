import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import type { HealthMonitor } from '@pos/core/health/check-dependencies';

/** What the printer-poll routes use, built once at start (main.ts) or per test file. */
export interface PrinterPollDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly log: Logger;
  readonly health: HealthMonitor;
}
