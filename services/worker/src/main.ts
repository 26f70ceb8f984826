import { createLogger, exitOnConfigError, readEnv, WorkerEnv } from '@pos/kernel';
import { migrateCentral } from '@pos/db';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';
import { buildWorkerDeps } from './deps.ts';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';

exitOnConfigError(() => fiscalConfigFromEnv(readEnv(WorkerEnv)));
let built: Awaited<ReturnType<typeof buildWorkerDeps>> | undefined;
let worker: RunningWorker;
try {
  built = await buildWorkerDeps(process.env);
  const log = built.deps.log;
  await migrateCentral(built.deps.db, (where, unknown) => log.warn('database migrated by a newer release: left as it is', { where, unknown }), {
    onBusy: (where, migration, attempt) => log.warn('migration waited too long for a table lock: trying again', { where, migration, attempt }),
  });
  worker = await startWorker(built.deps);
} catch (e) {
  createLogger({ service: 'worker' }).error('worker could not start', { err: e });
  await built?.close().catch(() => {});
  process.exit(1);
}
const { deps, close } = built;

let shuttingDown = false;
const shutdown = async (signal: string) => {
  if (shuttingDown) return;
  shuttingDown = true;
  deps.log.info('worker shutting down', { signal });
  try {
    await stopWorker(worker);
    await close();
  } finally {
    process.exit(0);
  }
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
