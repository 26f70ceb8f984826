import type Redis from 'ioredis';
import type { Static, TObject } from '@sinclair/typebox';
import type { ApiEnv, Clock, Logger, AppEnv } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import type { HealthMonitor } from '@pos/core/health/check-dependencies';
import type { TokenService } from './plugins/tokens.ts';
import type { FiscalService } from '@pos/core/fiscal/fiscal-service';
import type { AuthCache } from '@pos/core/auth/auth-cache';
import type { ClientAddressResolver } from '@pos/core/network/client-address';
import type { BodyPolicy } from './request-guard/body-policy.ts';
import type { ObjectStore } from '@pos/core/storage/object-store';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import type { RealtimeHub } from './realtime/realtime-hub.ts';

export type ApiConfig = Static<TObject<typeof ApiEnv>>;

/** Everything a route needs, built once at start (main.ts) or per test file. */
export interface ApiDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly config: ApiConfig;
  readonly env: AppEnv;
  readonly debug: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  readonly health: HealthMonitor;
  readonly tokens: TokenService;
  /** The register's authentication state, cached in the process and invalidated through Redis pub/sub. */
  readonly authCache: AuthCache;
  /** Signs fiscal events and keeps the hash-chained journal. */
  readonly fiscal: FiscalService;
  /** The client's address: the socket's, or X-Forwarded-For's from a trusted proxy (`TRUSTED_PROXIES`). */
  readonly clientAddress: ClientAddressResolver;
  /** The client address for per-address throttles: an IPv6 client is counted per /64 (`throttleSubject`). */
  readonly throttleAddress: ClientAddressResolver;
  /** Body size limits and media types per route family (the request guard and the server use them). */
  readonly bodyPolicies: readonly BodyPolicy[];
  /** Files (content uploads): local disk in development and tests, S3-compatible in production. */
  readonly objects: ObjectStore;
  /** Largest accepted content upload, in bytes. */
  readonly contentMaxBytes: number;
  /** Payment provider clients, defaults and the auto-success flag (spec 3). */
  readonly payments: PaymentProviders;
  /** Fans real-time events (Redis pub/sub) out to this process's WebSocket clients. */
  readonly realtime: RealtimeHub;
  /** Where `.git` and the REVISION file are looked up for GET /version. */
  readonly repoDir: string;
}
