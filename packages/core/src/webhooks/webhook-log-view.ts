import type { Selectable } from 'kysely';
import type { CentralDb, CentralTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { paging, type Datatable } from '../shared/datatable.ts';
import { handleCardAWebhook } from './card-a-webhook.ts';
import { handleCardBWebhook, type WebhookDeps } from './card-b-webhook.ts';
import { handlePlatformAWebhook } from './platform-a-webhook.ts';
import type { WebhookLogStatus } from './webhook-log.ts';
import { handleIntegrationWebhook, metaOf } from './integration-webhook.ts';
import { INTEGRATION_SPECS_BY_TYPE } from './integration-providers.ts';
import { isUuid } from '@pos/domain/ids';
import { redactSecrets } from '@pos/domain/payments/secret-redaction';

type Row = Selectable<CentralTables['webhook_logs']>;

export interface WebhookLogQuery {
  page?: number;
  per_page?: number;
  provider?: string;
  status?: string;
}

const listView = (r: Row) => ({
  id: r.id,
  provider: r.provider,
  type: r.type,
  event_type: r.event_type,
  event_id: r.event_id,
  status: r.status,
  occurrences: r.occurrences,
  error: r.error,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});
export type WebhookLogView = ReturnType<typeof listView>;

/** A merchant's own stored webhook events, newest first (events that resolved to no tenant belong to nobody). */
export async function listWebhookLogs(db: CentralDb, merchantId: string, q: WebhookLogQuery): Promise<Datatable<WebhookLogView>> {
  const { page, perPage, offset } = paging(q);
  let base = db.selectFrom('webhook_logs').where('merchant_id', '=', merchantId);
  if (q.provider) base = base.where('provider', '=', q.provider);
  if (q.status) base = base.where('status', '=', q.status);
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(listView), total: Number(total.n), page, per_page: perPage };
}

async function loadOwn(db: CentralDb, merchantId: string, id: string): Promise<Row> {
  // A path id that is not a UUID names no event (and must not reach the uuid column).
  if (!isUuid(id)) throw errors.notFound('webhook event');
  const row = await db.selectFrom('webhook_logs').selectAll().where('id', '=', id).where('merchant_id', '=', merchantId).executeTakeFirst();
  if (!row) throw errors.notFound('webhook event');
  return row;
}

/**
 * One event with what it carried (fields and the decoded payload), secrets and card data redacted: the
 * log is read by anyone holding VIEW_TRANSACTIONS, and a card-a intent carries its `client_secret`.
 * The stored row (and its raw body, which replays use) is unchanged.
 */
export async function getWebhookLog(db: CentralDb, merchantId: string, id: string) {
  const r = await loadOwn(db, merchantId, id);
  return { ...listView(r), fields: redactSecrets(r.fields), payload: redactSecrets(r.payload ?? null) };
}

/**
 * Runs a stored event that failed through its handler again, on the same row (spec 3: a stored event
 * that failed can be replayed). Claims and capture-exactly-once make a replay safe; only `failed` rows
 * are replayed (409 otherwise).
 */
export async function replayWebhookLog(deps: WebhookDeps, merchantId: string, id: string): Promise<{ status: WebhookLogStatus }> {
  // Acts only within this merchant: an event that now resolves to another is left failed (`replayFor`).
  return replayRow(deps, await loadOwn(deps.db, merchantId, id), ['failed'], merchantId);
}

/**
 * The operations replay (`bun run webhooks:replay <id>`): any stored event that failed, the tenant's
 * or not, through the same path as the back office's; also one that resolved to no tenant
 * (`location_not_resolved`: a card-b account event before the merchant attached the account, a shop
 * not mapped yet), resolved again as a new delivery would be. Every provider resolves the tenant before
 * it claims the event or acts, so such a row has had no effect and its replay is a first run.
 */
export async function replayWebhookById(deps: WebhookDeps, id: string): Promise<{ status: WebhookLogStatus }> {
  const row = isUuid(id)
    ? await deps.db.selectFrom('webhook_logs').selectAll().where('id', '=', id).executeTakeFirst()
    : undefined;
  if (!row) throw errors.notFound('webhook event');
  return replayRow(deps, row, ['failed', 'location_not_resolved']);
}

async function replayRow(deps: WebhookDeps, r: Row, replayable: readonly WebhookLogStatus[], replayFor?: string): Promise<{ status: WebhookLogStatus }> {
  const opts = { replayOf: r.id, ...(replayFor !== undefined ? { replayFor } : {}) };
  if (!replayable.includes(r.status as WebhookLogStatus)) throw errors.conflict('Only a failed webhook event can be replayed.', { reason: 'not_failed' });
  switch (r.provider) {
    case 'card-b': {
      const typeId = (r.fields as { event_type_id?: unknown }).event_type_id;
      return { status: (await handleCardBWebhook(deps, r.raw_body, String(typeof typeId === 'number' ? typeId : 0), opts)).status };
    }
    case 'card-a':
      return { status: (await handleCardAWebhook(deps, r.raw_body, '', opts)).status };
    case 'platform-a':
      return { status: (await handlePlatformAWebhook(deps, r.raw_body, opts)).status };
    default: {
      const spec = INTEGRATION_SPECS_BY_TYPE[r.type];
      if (spec) return { status: (await handleIntegrationWebhook(deps, spec, r.raw_body, metaOf(r.fields), opts)).status };
      throw errors.conflict('This provider\'s events cannot be replayed.', { reason: 'not_replayable' });
    }
  }
}
