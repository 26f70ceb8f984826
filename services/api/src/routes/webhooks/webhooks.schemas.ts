import { Type as T } from '@sinclair/typebox';

export const CardAParams = T.Object({ countryCode: T.String({ pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2 }) });
export const CardBParams = T.Object({
  countryCode: T.String({ pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2 }),
  eventTypeId: T.String({ pattern: '^[0-9]{1,6}$', minLength: 1, maxLength: 6 }),
});
/** What a provider gets once verification passed, whatever became of the event. */
export const Received = T.Object({ received: T.Literal(true) });
export const CardBKey = T.Object({ Key: T.String() });
/** register-b's event type, from the path. */
export const RegisterBParams = T.Object({ event: T.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$', minLength: 1, maxLength: 64 }) });
/** An OAuth callback's query (RFC 6749 4.1.2); shop-a adds `shop`. Other parameters are ignored. */
export const OAuthCallbackQuery = T.Object(
  {
    code: T.Optional(T.String({ minLength: 1, maxLength: 2048 })),
    state: T.Optional(T.String({ minLength: 1, maxLength: 2048 })),
    error: T.Optional(T.String({ minLength: 1, maxLength: 200 })),
    error_description: T.Optional(T.String({ maxLength: 2048 })),
    shop: T.Optional(T.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: true },
);
export const OAuthConnected = T.Object({
  status: T.Literal('success'),
  data: T.Object({ provider: T.String(), connection_id: T.String({ format: 'uuid' }), location_id: T.Union([T.String({ format: 'uuid' }), T.Null()]) }),
});
