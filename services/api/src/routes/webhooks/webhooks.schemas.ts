import { Type as T } from '@sinclair/typebox';

export const CardAParams = T.Object({ countryCode: T.String({ pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2 }) });
export const CardBParams = T.Object({
  countryCode: T.String({ pattern: '^[A-Za-z]{2}$', minLength: 2, maxLength: 2 }),
  eventTypeId: T.String({ pattern: '^[0-9]{1,6}$', minLength: 1, maxLength: 6 }),
});
/** What a provider gets once verification passed, whatever became of the event. */
export const Received = T.Object({ received: T.Literal(true) });
export const CardBKey = T.Object({ Key: T.String() });
