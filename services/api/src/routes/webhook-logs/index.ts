import { Elysia, type AnyElysia } from 'elysia';
import { getWebhookLog, listWebhookLogs, replayWebhookLog } from '@pos/core/webhooks/webhook-log-view';
import type { WebhookDeps } from '@pos/core/webhooks/card-b-webhook';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import * as S from './webhook-logs.schemas.ts';

const doc = (summary: string, description: string) => ({
  detail: { tags: ['Webhooks'], summary, description: `Permission: VIEW_TRANSACTIONS. ${description}`, security: [{ bearer: [] }] },
});

/** The merchant's own inbound webhook events (issue 13, point 7): data table, detail, replay. */
export function webhookLogRoutes(deps: ApiDeps, handlerDeps: WebhookDeps): AnyElysia {
  return webhookLogRoutesTyped(deps, handlerDeps);
}

function webhookLogRoutesTyped(deps: ApiDeps, handlerDeps: WebhookDeps) {
  return new Elysia({ name: 'webhook-logs', prefix: '/back-office/webhook-logs' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/datatable', async ({ tenant, query }) => listWebhookLogs(deps.db, tenant.merchant.id, query), {
      query: S.WebhookLogQuery,
      response: { 200: S.Datatable },
      transform: [permission('VIEW_TRANSACTIONS')],
      ...doc('Webhook events data table', 'This merchant\'s stored provider events, newest first; filters provider and status; page, per_page (max 100).'),
    })
    .get('/:id', async ({ tenant, params }) => ({ data: await getWebhookLog(deps.db, tenant.merchant.id, params.id) }), {
      params: S.IdParams,
      response: { 200: S.Detail },
      transform: [permission('VIEW_TRANSACTIONS')],
      ...doc('Webhook event detail', 'With the stored fields and the decoded payload, values under secret or card-data keys (client_secret, tokens, signatures, card number, expiry, CVC, fingerprint) shown as `[redacted]`; another merchant\'s event is 404.'),
    })
    .post('/:id/replay', async ({ tenant, params }) => ({ data: await replayWebhookLog(handlerDeps, tenant.merchant.id, params.id) }), {
      params: S.IdParams,
      response: { 200: S.Replayed },
      transform: [permission('VIEW_TRANSACTIONS')],
      ...doc('Replay a failed webhook event', 'Runs a `failed` event through its handler again on the same row and answers its new status; anything else is 409 `not_failed`. Claims and capture-exactly-once make a replay change nothing that already happened.'),
    });
}
