import { createLogger } from '@pos/kernel/logger';
import { createDatabase } from '../database.ts';
import { resolveDatabase } from '../embedded.ts';
import { migrateAll } from '../migrator.ts';

/** `bun run migrate`: central migrations, then every tenant's. */
const log = createLogger({ cmd: 'migrate' });
const resolved = await resolveDatabase(process.env, process.cwd(), (m) => log.info(m));
const h = createDatabase(resolved.url, { max: 2, applicationName: 'migrate' });
try {
  const { tenants } = await migrateAll(h.db);
  log.info('migrations applied', { tenants });
} catch (e) {
  log.error('migration failed', { err: e });
  process.exitCode = 1;
} finally {
  await h.close();
  await resolved.stop();
}
