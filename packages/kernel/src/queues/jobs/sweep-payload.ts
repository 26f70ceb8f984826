import { Type } from '@sinclair/typebox';

/** The payload of a scheduled sweep over the merchants: one merchant's schema, or every merchant without it. */
export const SweepPayload = Type.Object(
  {
    tenant_database: Type.Optional(Type.String({ pattern: '^t_[a-z0-9_]{1,60}$' })),
    /** When the sweep was scheduled (ISO 8601, UTC). */
    at: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' })),
  },
  { additionalProperties: false },
);
