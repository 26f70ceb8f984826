import { CommissionEnv, CommonEnv, PaymentEnv, createLogger, createRedis, ensureRedis, readEnv } from '@pos/kernel';
import { createDatabase, resolveDatabase } from '@pos/db';
import { AppError } from '@pos/kernel';
import { paymentProvidersFromEnv } from '../payments/payment-providers.ts';
import { replayWebhookById } from './webhook-log-view.ts';

/**
 * `bun run webhooks:replay <webhook log id>`: runs a stored event that failed, or that resolved to no
 * tenant (`location_not_resolved`), through its handler again: the back office's replay path without
 * the merchant scope (operations replay events that resolved to no tenant once the mapping is fixed).
 * Prints `{"id", "status"}` as the last line of stdout; exit 1 when the event is unknown or neither
 * failed nor unresolved (logs go to stderr).
 */
const log = createLogger({ cmd: 'webhooks:replay' });
const id = process.argv[2];
if (!id) {
  log.error('usage: bun run webhooks:replay <webhook log id>');
  process.exit(1);
}
const env = readEnv({ ...CommonEnv, ...PaymentEnv, ...CommissionEnv });
const resolved = await resolveDatabase(process.env, process.cwd(), (m) => log.info(m));
const h = createDatabase(resolved.url, { max: 2, applicationName: 'webhooks-replay' });
const redis = createRedis(await ensureRedis(env.REDIS_URL), 'webhooks-replay');
try {
  const r = await replayWebhookById(
    {
      db: h.db,
      redis,
      providers: paymentProvidersFromEnv(env),
      log,
      now: () => new Date(),
      commissionBps: Number(env.CARD_B_COMMISSION_BPS ?? 0),
      invoiceCommission: { resellerBps: Number(env.CARD_A_RESELLER_COMMISSION_BPS ?? 0), collectionBps: Number(env.CARD_A_INVOICE_COLLECTION_BPS ?? 0) },
    },
    id,
  );
  log.info('webhook event replayed', { id, status: r.status });
  process.stdout.write(JSON.stringify({ id, status: r.status }) + '\n');
} catch (e) {
  if (e instanceof AppError) log.error(e.message, { id });
  else log.error('replay failed', { id, err: e });
  process.exitCode = 1;
} finally {
  redis.disconnect();
  await h.close();
  await resolved.stop();
}
