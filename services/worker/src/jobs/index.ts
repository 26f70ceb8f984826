import type { Clock } from '@pos/kernel';
import type { KnownJob } from '@pos/kernel/queues/index';
import { registerRecoveryHooks } from '@pos/core/pos/fiscal-recovery/recovery-hooks';
import type { JobHandler } from './job-handler.ts';
import type { FiscalService } from '@pos/core/fiscal/fiscal-service';
import { createFiscalRecoverHandler } from './fiscal-recover.handler.ts';
import { createFiscalWorkEventHandler } from './fiscal-work-event.handler.ts';
import { handleHeartbeat } from './heartbeat.handler.ts';
import { handleNotificationSend } from './notification-send.handler.ts';
import { createAccountMailHandler } from './account-mail.handler.ts';
import { handleTeamInvitationMail } from './team-invitation-mail.handler.ts';
import type { AccountMailing } from '@pos/core/accounts/sign-up';
import { handleWebhooksPurge } from './webhooks-purge.handler.ts';
import { createPostCaptureSweepHandler } from './post-capture-sweep.handler.ts';
import { createIntegrationAutoSyncHandler } from './integration-auto-sync.handler.ts';
import { createOrderImportHandler } from './integration-order-import.handler.ts';
import { createOrderImportSweepHandler } from './integration-order-import-sweep.handler.ts';
import type { SyncClients } from '@pos/core/integrations/sync-runners';
import { createPaymentBatchHandlers, createPaymentHandlers, type PaymentHandlerDeps } from './payments.handlers.ts';
import type { BatchJobHandler } from './job-handler.ts';

export type { BatchJobHandler, JobContext, JobHandler } from './job-handler.ts';

/** One handler per known job; the mapped type makes a job without a handler a compile error. */
export type JobHandlers = { readonly [D in KnownJob as D['name']]: JobHandler<D> };

/** What the worker's jobs need of the fiscal service (the whole FiscalService in production). */
export type WorkerFiscal = Pick<FiscalService, 'completePending' | 'signInTransaction' | 'reserveRemote' | 'sendReserved'>;

/** What the handlers are built from (once per worker). */
export interface HandlerDeps extends PaymentHandlerDeps {
  /** Completes pending fiscal journal entries (`fiscal.recover`) and signs work events (`fiscal.work-event`). */
  readonly fiscal: WorkerFiscal;
  /** Time of the records the handlers finish (settled orders; `registerRecoveryHooks`). */
  readonly clock: Clock;
  /** `fiscal.recover` leaves pending entries younger than this to the call in flight (default 60 s). */
  readonly fiscalRecoverOlderThanMs?: number;
  /** Provider clients of the integrations' scheduled syncs (issue 17); unset: every sync records not configured. */
  readonly integrations?: SyncClients;
  /** Back-office account mails (`account.mail`); unset: those jobs fail (no SMTP). */
  readonly accountMailing?: Omit<AccountMailing, 'log'> | null;
}

const NO_INTEGRATIONS: SyncClients = { deliveryA: null, deliveryB: null, platformA: null, registerA: null, registerC: null, tokenKey: null };

/** The worker's handlers, by job name. */
export function createHandlers(deps: HandlerDeps): JobHandlers {
  return {
    heartbeat: handleHeartbeat,
    'notification.send': handleNotificationSend,
    'account.mail': createAccountMailHandler(deps.accountMailing ?? null),
    'team.invitation-mail': handleTeamInvitationMail,
    'fiscal.recover': createFiscalRecoverHandler({
      fiscal: deps.fiscal,
      ...(deps.redis ? { redis: deps.redis } : {}),
      hooks: registerRecoveryHooks(deps.clock),
      ...(deps.fiscalRecoverOlderThanMs !== undefined ? { olderThanMs: deps.fiscalRecoverOlderThanMs } : {}),
    }),
    'fiscal.work-event': createFiscalWorkEventHandler(deps.fiscal),
    'webhooks.purge': handleWebhooksPurge,
    'payment.post-capture-sweep': createPostCaptureSweepHandler({ ...(deps.redis ? { redis: deps.redis } : {}), ...(deps.payments ? { payments: deps.payments } : {}) }),
    'integration.auto-sync': createIntegrationAutoSyncHandler(deps.integrations ?? NO_INTEGRATIONS),
    'integration.order-import': createOrderImportHandler({ ...(deps.redis ? { redis: deps.redis } : {}), integrations: deps.integrations ?? NO_INTEGRATIONS }),
    'integration.order-import-sweep': createOrderImportSweepHandler({ ...(deps.redis ? { redis: deps.redis } : {}) }),
    ...createPaymentHandlers(deps),
  };
}

/** The batch handlers of the jobs that take batches (`JobDefinition.batch`), by job name. */
export function createBatchHandlers(deps: PaymentHandlerDeps): Readonly<Record<string, BatchJobHandler<any>>> {
  return createPaymentBatchHandlers(deps);
}
