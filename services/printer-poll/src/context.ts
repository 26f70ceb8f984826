import type Redis from 'ioredis';
import type { AppEnv, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import type { HealthMonitor } from '@pos/core/health/check-dependencies';
import type { ClientAddressResolver } from '@pos/core/network/client-address';

/** What the printer-poll routes use, built once at start (main.ts) or per test file. */
export interface PrinterPollDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly log: Logger;
  readonly health: HealthMonitor;
  /** Throttles are off in `local` (as in the API). Default `test`. */
  readonly appEnv?: AppEnv;
  /** How long a job handed to a poll stays reserved for it before it is offered again (default 60 s). */
  readonly leaseMs?: number;
  readonly now?: () => Date;
  /**
   * The client's address as the per-address throttle counts it: the socket's, or `X-Forwarded-For`'s from a
   * trusted proxy (`TRUSTED_PROXIES`). Default: the socket's. Behind an ingress every printer shares the
   * ingress's socket address, so without it one client's made-up tokens throttled every printer.
   */
  readonly clientAddress?: ClientAddressResolver;
}
