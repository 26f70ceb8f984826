import { t } from 'elysia';
import { PathId } from '../shared.schemas.ts';

export const mappingParams = t.Object({ upvendoLocationId: PathId({ description: 'our location id' }) });

export const mappingBody = t.Object(
  { register_c_location_id: t.String({ minLength: 1, maxLength: 200, description: 'the register-c business location id' }) },
  { additionalProperties: false },
);

const mapping = t.Object({
  upvendo_location_id: t.String(),
  register_c_location_id: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('paused')]),
  updated_at: t.String(),
});

export const mappingListResponse = t.Object({ data: t.Array(mapping) });
export const mappingResponse = t.Object({ status: t.Literal('success'), data: mapping });
export const mappingDeleteResponse = t.Object({ status: t.Literal('success') });
