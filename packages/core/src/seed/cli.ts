import { parseArgs } from 'node:util';
import { createLogger, readEnv } from '@pos/kernel';
import { Type } from '@sinclair/typebox';
import { createDatabase, migrateCentral, resolveDatabase } from '@pos/db';
import { SeedExistsError, seedDemo } from './demo-seed.ts';

/**
 * `bun run seed:demo [-- --slug NAME] [--reset]`: applies pending central migrations, creates the demo
 * merchant and prints exactly one JSON object as the last line of stdout (logs go to stderr).
 * Exit 1 when the slug exists and --reset was not given.
 */
const log = createLogger({ cmd: 'seed:demo' });
const { values } = parseArgs({ options: { slug: { type: 'string', default: 'demo' }, reset: { type: 'boolean', default: false } }, strict: true });
const env = readEnv({ DEVICE_API_KEY: Type.String({ minLength: 16 }), PIN_PEPPER: Type.String({ minLength: 16 }), DATABASE_URL: Type.Optional(Type.String()) });
const resolved = await resolveDatabase(process.env, process.cwd(), (m) => log.info(m));
const h = createDatabase(resolved.url, { max: 4, applicationName: 'seed' });
try {
  // A new merchant needs the central migrations and its own schema (createMerchant migrates it), not
  // every other merchant's: those are `bun run migrate`'s job at deploy time.
  await migrateCentral(h.db);
  const result = await seedDemo(h.db, { slug: values.slug!, reset: values.reset!, apiKey: env.DEVICE_API_KEY, pinPepper: env.PIN_PEPPER });
  log.info('demo merchant created', { slug: result.merchant.slug });
  process.stdout.write(JSON.stringify(result) + '\n');
} catch (e) {
  if (e instanceof SeedExistsError) log.error(e.message);
  else log.error('seed failed', { err: e });
  process.exitCode = 1;
} finally {
  await h.close();
  await resolved.stop();
}
