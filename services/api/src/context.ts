import type Redis from 'ioredis';
import type { Static, TObject } from '@sinclair/typebox';
import type { ApiEnv, Clock, Logger, AppEnv } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import type { HealthMonitor } from '@pos/core/health/check-dependencies';
import type { TokenService } from './plugins/tokens.ts';

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
  /** Where `.git` and the REVISION file are looked up for GET /version. */
  readonly repoDir: string;
}
