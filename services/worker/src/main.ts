import { exitOnConfigError, readEnv, WorkerEnv, createLogger } from '@pos/kernel';
import { migrateCentral } from '@pos/db';
import { buildWorkerDeps } from './deps.ts';
import { startWorker, stopWorker } from './worker.ts';

exitOnConfigError(() => readEnv(WorkerEnv));
let built: Awaited<ReturnType<typeof buildWorkerDeps>>;
try {
  built = await buildWorkerDeps(process.env);
  await migrateCentral(built.deps.db);
} catch (e) {
  createLogger({ service: 'worker' }).error('worker could not start', { err: e });
  process.exit(1);
}
const { deps, close } = built;
const worker = await startWorker(deps);
deps.log.info('worker listening', { port: worker.port });

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
