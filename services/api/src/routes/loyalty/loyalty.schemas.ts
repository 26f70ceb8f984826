import { t } from 'elysia';
import { PathId, vendorIdField } from '../shared.schemas.ts';

export const LocationParams = t.Object({ locationId: PathId() });
export const VendorQuery = t.Object({ ...vendorIdField() });
export const Success = t.Object({ status: t.Literal('success') });

const Reward = t.Object({ id: t.String(), name: t.String(), points: t.Integer(), discount: t.Integer(), active: t.Boolean() });
const Config = t.Object({ location_id: t.String(), active: t.Boolean(), points_per_euro: t.Integer(), rewards: t.Array(Reward), updated_at: t.String() });
export const ConfigResponse = t.Object({ data: t.Nullable(Config) });
export const SavedResponse = t.Object({ data: Config });
export const SubscriptionResponse = t.Object({
  data: t.Object({ location_id: t.String(), plan: t.String(), status: t.Union([t.Literal('active'), t.Literal('paused'), t.Literal('not_configured')]), members: t.Integer() }),
});

export const LoyaltyBody = t.Object({
  active: t.Boolean(),
  points_per_euro: t.Integer({ minimum: 0, maximum: 1000, error: 'The points_per_euro field must be an integer from 0 to 1000.' }),
  rewards: t.Optional(
    t.Array(
      t.Object({
        id: t.Optional(t.String({ maxLength: 64 })),
        name: t.String({ minLength: 1, maxLength: 100 }),
        points: t.Integer({ minimum: 1, maximum: 1_000_000 }),
        discount: t.Integer({ minimum: 1, maximum: 1_000_000, description: 'cents off the basket' }),
        active: t.Optional(t.Boolean()),
      }),
      { maxItems: 50 },
    ),
  ),
});
