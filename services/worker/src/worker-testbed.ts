/** A test file's worker: the test environment opened once, the running worker stopped after each test, its queue prefixes dropped at the end. */
import { afterAll, afterEach, beforeAll } from 'bun:test';
import { stopWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, uniquePrefix, type TestEnv } from './test-support.ts';

export interface WorkerTestbed {
  /** Open from `beforeAll` on. */
  env: TestEnv;
  /** The test's worker, if it started one: stopped after the test. */
  worker: RunningWorker | undefined;
  /** A queue prefix of its own, dropped from Redis once the file's tests are done. */
  prefix(): string;
}

/** Registers the hooks; `cleanup` runs after the prefixes are dropped, before the environment closes. */
export function workerTestbed(cleanup?: (env: TestEnv, prefixes: readonly string[]) => Promise<unknown>): WorkerTestbed {
  const prefixes: string[] = [];
  const bed: WorkerTestbed = {
    env: undefined as unknown as TestEnv,
    worker: undefined,
    prefix() {
      const p = uniquePrefix();
      prefixes.push(p);
      return p;
    },
  };
  beforeAll(async () => {
    bed.env = await openTestEnv();
  });
  afterEach(async () => {
    await stopWorker(bed.worker);
    bed.worker = undefined;
  });
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(bed.env.redis, p);
    await cleanup?.(bed.env, prefixes);
    await bed.env.close();
  });
  return bed;
}
