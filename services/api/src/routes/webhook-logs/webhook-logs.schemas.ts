import { t } from 'elysia';
import { Int, PathId, vendorIdField } from '../shared.schemas.ts';
import { Strict } from '../catalog/catalog.schemas.ts';

const STATUSES = ['received', 'processed', 'duplicate', 'location_not_resolved', 'ignored', 'failed'] as const;

export const WebhookLogQuery = Strict({
  ...vendorIdField(),
  page: t.Optional(t.Integer({ minimum: 1, maximum: 100_000 })),
  per_page: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
  // Every provider the log holds (payments and integrations: delivery-a, register-b, shop-a, crm...); an unknown one lists nothing.
  provider: t.Optional(t.String({ maxLength: 40, pattern: '^[a-z][a-z0-9-]{0,39}$', error: 'The provider must be a provider name such as card-a or delivery-a.' })),
  status: t.Optional(t.Union(STATUSES.map((s) => t.Literal(s)), { error: `The status must be one of ${STATUSES.join(', ')}.` })),
});
/** Any id: one that is not a UUID is not found (404), as on every other `{id}` route. */
export const IdParams = t.Object({ id: PathId() });

const Row = t.Object({
  id: t.String(),
  provider: t.String(),
  type: t.String(),
  event_type: t.Nullable(t.String()),
  event_id: t.Nullable(t.String()),
  status: t.String(),
  occurrences: Int(),
  error: t.Nullable(t.String()),
  created_at: t.String(),
  updated_at: t.String(),
});
export const Datatable = t.Object({ data: t.Array(Row), total: Int(), page: Int(), per_page: Int() });
export const Detail = t.Object({ data: t.Composite([Row, t.Object({ fields: t.Unknown(), payload: t.Unknown() })]) });
export const Replayed = t.Object({ data: t.Object({ status: t.String() }) });
