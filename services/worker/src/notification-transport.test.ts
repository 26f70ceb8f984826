import { describe, expect, test } from 'bun:test';
import type { Logger } from '@pos/kernel';
import { createQueue, notificationSendJob, type JobEnvelope } from '@pos/kernel/queues/index';
import { buildWorkerDeps } from './deps.ts';
import { startWorker, stopWorker } from './worker.ts';
import { workerTestbed } from './worker-testbed.ts';
import { TEST_REDIS_URL, TEST_WORKER_ENV, waitFor } from './test-support.ts';

/**
 * Without SMTP_URL or SMS_* the worker handed every notification to the dev-log driver, which logged
 * the rendered subject at info level: in production an activation code ('Activation code for Leak
 * kiosk: 8BEHS5ST') landed in the logs and the merchant was told it was sent. Now a production worker
 * without a transport warns once at start and fails each notification for good; local and test keep
 * the dev-log driver.
 */
const bed = workerTestbed((env, prefixes) => (prefixes.length ? env.handle.db.deleteFrom('job_failures').where('prefix', 'in', prefixes).execute() : Promise.resolve()));

type Line = { level: string; msg: string; fields: Record<string, unknown> };
function captureLog(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (msg: string, fields: Record<string, unknown> = {}) => void lines.push({ level, msg, fields });
  const log = { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

const CODE = '8BEHS5ST';
const payload = { channel: 'sms' as const, to: '+32470123456', template: 'device-activation-code', data: { device_name: 'Leak kiosk', code: CODE } };

/** Puts a `notification.send` job on the notifications queue under `prefix`, with its retries. */
async function sendJob(prefix: string): Promise<string> {
  const q = createQueue(notificationSendJob.queue, TEST_REDIS_URL, { prefix });
  const jobId = `outbox-${900_000 + Math.floor(Math.random() * 99_999)}-${Date.now().toString(36)}`;
  try {
    await q.ready();
    const data: JobEnvelope = { job: notificationSendJob.name, version: notificationSendJob.version, payload, outbox_id: 1, enqueued_at: new Date().toISOString() };
    await q.createJob(data).setId(jobId).retries(3).backoff('fixed', 20).save();
  } finally {
    await q.close(1000);
  }
  return jobId;
}

const failure = (prefix: string, jobId: string) =>
  bed.env.handle.db.selectFrom('job_failures').select(['job', 'error', 'runs']).where('prefix', '=', prefix).where('job_id', '=', jobId).executeTakeFirst();

async function run(env: Record<string, string>) {
  const log = captureLog();
  const built = await buildWorkerDeps({ ...TEST_WORKER_ENV, ...env }, { log });
  const prefix = bed.prefix();
  bed.worker = await startWorker({ ...built.deps, prefix, port: undefined, heartbeatMs: 3_600_000, fiscalRecoverMs: 0, relayIntervalMs: 50, webhookPurgeMs: 0, postCaptureSweepMs: 0, autoSyncMs: 0, orderImportSweepMs: 0 });
  const close = async () => {
    await stopWorker(bed.worker);
    bed.worker = undefined;
    await built.close();
  };
  return { log, prefix, built, close };
}

describe('notification.send without a mail or SMS transport', () => {
  test('in production: one warning at start naming the missing settings; the job fails for good with a clear error, nothing of it logged', async () => {
    const { log, prefix, close } = await run({ APP_ENV: 'production' });
    try {
      const warnings = log.lines.filter((l) => l.level === 'warn');
      expect(warnings).toEqual([
        { level: 'warn', msg: 'notifications cannot be sent: no mail or SMS transport is configured; notification.send jobs fail', fields: { missing: ['SMTP_URL', 'SMS_BASE_URL', 'SMS_API_KEY'] } },
      ]);
      const jobId = await sendJob(prefix);
      const rec = await waitFor(() => failure(prefix, jobId), 10_000, 'the failure recorded');
      expect(rec).toEqual({ job: 'notification.send', error: expect.stringContaining('no mail or SMS transport is configured (SMTP_URL, SMS_BASE_URL, SMS_API_KEY)'), runs: 1 });
      expect(rec.error).not.toContain(CODE);
      expect(await bed.worker!.metrics.processedCount('notification.send')).toBe(0);
      const text = JSON.stringify(log.lines);
      expect(text).not.toContain(CODE);
      expect(text).not.toContain('470123456');
      expect(log.lines.some((l) => l.msg === 'notification sent')).toBe(false);
    } finally {
      await close();
    }
  });

  test('in production with SMTP_URL set: the messaging driver, no warning', async () => {
    const { log, built, close } = await run({ APP_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:1' });
    try {
      expect(built.deps.notifications?.name).toBe('messaging');
      expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    } finally {
      await close();
    }
  });

  for (const appEnv of ['test', 'local']) {
    test(`with APP_ENV=${appEnv}: the dev-log driver logs the rendered subject, as before, and the job is done`, async () => {
      const { log, prefix, close } = await run({ APP_ENV: appEnv });
      try {
        expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
        const jobId = await sendJob(prefix);
        const line = await waitFor(() => log.lines.find((l) => l.msg === 'notification sent'), 10_000, 'the dev-log line');
        expect(line.fields).toMatchObject({ driver: 'dev-log', channel: 'sms', template: 'device-activation-code', subject: `Activation code for Leak kiosk: ${CODE}` });
        await waitFor(async () => (await bed.worker!.metrics.processedCount('notification.send')) === 1, 5000, 'the job done');
        expect(await failure(prefix, jobId)).toBeUndefined();
      } finally {
        await close();
      }
    });
  }
});
