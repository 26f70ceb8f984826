import { exitOnConfigError, ApiEnv, readEnv, portOf } from '@pos/kernel';
import { migrateCentral } from '@pos/db';
import { createApp } from './app.ts';
import { buildDeps } from './deps.ts';
import { startSiblings } from './processes.ts';
import { serveOptions } from './request-guard/serve-options.ts';

exitOnConfigError(() => readEnv(ApiEnv));
const { deps, close } = await buildDeps(process.env);
await migrateCentral(deps.db, (where, unknown) => deps.log.warn('database migrated by a newer release: left as it is', { where, unknown }), {
  onBusy: (where, migration, attempt) => deps.log.warn('migration waited too long for a table lock: trying again', { where, migration, attempt }),
});
const port = portOf(deps.config.API_PORT, 3000);
const processes = Number(deps.config.API_PROCESSES ?? 1);
// reusePort only with several API processes (API_PROCESSES): they share the port and the kernel
// balances connections. A single process keeps the plain bind, so a second one by mistake still fails.
const app = createApp(deps).listen({ ...serveOptions(deps.bodyPolicies), port, hostname: '0.0.0.0', reusePort: processes > 1 });
deps.log.info('api listening', { port, env: deps.env, pid: process.pid });
const siblings = startSiblings(processes, deps.log);

const shutdown = async () => {
  await siblings.stop();
  await app.stop();
  await close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
