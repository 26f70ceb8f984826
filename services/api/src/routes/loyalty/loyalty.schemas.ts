import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

export const LocationParams = t.Object({ locationId: PathId() });
export const VendorQuery = t.Object({ ...vendorIdField() });
export const Success = t.Object({ status: t.Literal('success') });

const Reward = t.Object({ id: t.String(), name: t.String(), points: Int(), discount: Int(), active: t.Boolean() });
const Config = t.Object({ location_id: t.String(), active: t.Boolean(), points_per_euro: Int(), rewards: t.Array(Reward), updated_at: t.String() });
export const ConfigResponse = t.Object({ data: t.Nullable(Config) });
export const SavedResponse = t.Object({ data: Config });
export const SubscriptionResponse = t.Object({
  data: t.Object({ location_id: t.String(), plan: t.String(), status: t.Union([t.Literal('active'), t.Literal('paused'), t.Literal('not_configured')]), members: Int() }),
});

export const LoyaltyBody = t.Object({
  active: t.Boolean(),
  points_per_euro: Int({ minimum: 0, maximum: 1000, error: 'The points_per_euro field must be an integer from 0 to 1000.' }),
  rewards: t.Optional(
    t.Array(
      t.Object({
        id: t.Optional(t.String({ maxLength: 64 })),
        name: t.String({ minLength: 1, maxLength: 100, pattern: '\\S', error: 'The name field is required and may not be greater than 100 characters.' }),
        points: Int({ minimum: 1, maximum: 1_000_000 }),
        discount: Int({ minimum: 1, maximum: 1_000_000, description: 'cents off the basket' }),
        active: t.Optional(t.Boolean()),
      }, { additionalProperties: false }), // a mistyped key (`percent`) is a 422, not silently dropped
      { maxItems: 50 },
    ),
  ),
});
