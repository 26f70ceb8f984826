import { exitOnConfigError, ApiEnv, readEnv, portOf } from '@pos/kernel';
import { migrateCentral } from '@pos/db';
import { createApp } from './app.ts';
import { buildDeps } from './deps.ts';
import { serveOptions } from './request-guard/serve-options.ts';

exitOnConfigError(() => readEnv(ApiEnv));
const { deps, close } = await buildDeps(process.env);
await migrateCentral(deps.db);
const port = portOf(deps.config.API_PORT, 3000);
const app = createApp(deps).listen({ ...serveOptions(deps.bodyPolicies), port, hostname: '0.0.0.0' });
deps.log.info('api listening', { port, env: deps.env });

const shutdown = async () => {
  await app.stop();
  await close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
