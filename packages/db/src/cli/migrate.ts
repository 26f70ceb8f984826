import { createLogger } from '@pos/kernel/logger';
import { createDatabase } from '../database.ts';
import { resolveDatabase } from '../embedded.ts';
import { migrateAll } from '../migrator.ts';

/** `bun run migrate`: central migrations, then every tenant schema behind the current set (MIGRATE_CONCURRENCY at a time, default 4). */
const log = createLogger({ cmd: 'migrate' });
const resolved = await resolveDatabase(process.env, process.cwd(), (m) => log.info(m));
const concurrency = Math.max(1, Number(process.env.MIGRATE_CONCURRENCY ?? 4));
const h = createDatabase(resolved.url, { max: concurrency + 1, applicationName: 'migrate' });
try {
  let lastReport = 0;
  const { tenants, migrated } = await migrateAll(h.db, {
    concurrency,
    // A rollback's migrate job: a schema a newer release migrated is left as it is, not refused.
    onAhead: (where, unknown) => log.warn('migrated by a newer release: left as it is', { where, unknown }),
    // A live table busy past the lock timeout: the migration gave its lock request up and tries again.
    locking: { onBusy: (where, migration, attempt) => log.warn('migration waited too long for a table lock: trying again', { where, migration, attempt }) },
    onProgress: ({ done, total }) => {
      // At most one line a second, and always the last one.
      if (done === total || Date.now() - lastReport > 1000) {
        lastReport = Date.now();
        log.info('tenant migrations', { done, total });
      }
    },
  });
  log.info('migrations applied', { tenants, migrated, up_to_date: tenants - migrated });
} catch (e) {
  log.error('migration failed', { err: e });
  process.exitCode = 1;
} finally {
  await h.close();
  await resolved.stop();
}
