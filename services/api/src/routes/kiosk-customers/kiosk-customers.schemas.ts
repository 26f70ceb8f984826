import { t } from 'elysia';
import { NO_NUL, Strict, Uuid } from '../catalog/catalog.schemas.ts';
import { QuoteBody, Quote } from '../kiosk-pricing/kiosk-pricing.schemas.ts';
import { Phone, Int } from '../shared.schemas.ts';

const Email = t.String({ minLength: 3, maxLength: 254, error: 'The email field must be a valid email address.' });
const PhoneField = Phone({ error: 'The phone field must be a valid phone number.' });
const Token = t.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._~-]+$', error: 'The loyalty_token field must be a token.' });
const Version = (field: string) => t.String({ minLength: 1, maxLength: 32, pattern: '^\\d{1,6}(\\.\\d{1,6}){0,3}$', error: `The ${field} field must be a version such as 2.4.1.` });
const Platform = t.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9_-]{1,32}$', error: 'The platform field must be a platform name such as android.' });

export const IdentifyBody = Strict({
  phone: t.Optional(PhoneField),
  email: t.Optional(Email),
  name: t.Optional(t.String({ minLength: 1, maxLength: 100, pattern: NO_NUL, error: 'The name field may not be greater than 100 characters.' })),
});
export const LoyaltyLoginBody = Strict({ phone: t.Optional(PhoneField), email: t.Optional(Email) });
export const LoyaltyQuery = Strict({ loyalty_token: Token });

const Customer = t.Object({
  id: t.String(),
  name: t.Nullable(t.String()),
  email: t.Nullable(t.String({ description: 'masked (a kiosk is a shared screen)' })),
  phone: t.Nullable(t.String({ description: 'masked' })),
});
const Program = t.Nullable(
  t.Object({
    active: t.Boolean(),
    points_per_euro: Int(),
    rewards: t.Array(t.Object({ id: t.String(), name: t.String(), points: Int(), discount: Int({ description: 'cents off the basket' }) })),
  }),
);
const Loyalty = t.Object({ points: Int(), lifetime_points: Int(), program: Program });
export const SessionResponse = t.Object({
  data: t.Object({
    customer: Customer,
    created: t.Boolean({ description: 'true when this call enrolled the customer' }),
    loyalty_token: t.String({ description: 'pass to POST /kiosk/payment/create-intent; valid 15 minutes, this kiosk only, spent by the payment' }),
    expires_at: t.String(),
    loyalty: Loyalty,
  }),
});
export const DetailsResponse = t.Object({
  data: t.Object({
    customer: Customer,
    loyalty: Loyalty,
    history: t.Array(t.Object({ kind: t.String(), points: Int(), balance_after: Int(), transaction_id: t.Nullable(t.String()), at: t.String() })),
  }),
});

const Rule = t.Unknown({ description: 'percentage {percent}, amount {amount} or buy_x_get_y {buy, get}' });
export const OffersResponse = t.Object({
  data: t.Array(
    t.Object({
      id: t.String(),
      name: t.String(),
      description: t.Nullable(t.String()),
      rule: Rule,
      item_ids: t.Array(t.String()),
      category_ids: t.Array(t.String()),
      min_basket: Int(),
      schedule: t.Unknown(),
      available_now: t.Boolean({ description: 'the schedule is open now in the location\'s time zone' }),
    }),
  ),
});
export const ValidateOffersBody = Strict({
  lines: QuoteBody.properties.lines,
  offer_ids: t.Optional(t.Array(Uuid('offer id'), { maxItems: 20 })),
  loyalty_token: t.Optional(Token),
  reward_id: t.Optional(Uuid('reward id')),
});
export const ValidateOffersResponse = t.Object({
  data: t.Object({
    quote: Quote.properties.data,
    offers: t.Array(
      t.Object({
        id: t.String(),
        name: t.String(),
        applied: t.Boolean(),
        discount: Int(),
        reason: t.Nullable(t.String({ description: 'why not applied: channel, schedule, min_basket, no_eligible_items, not_active, no_discount' })),
      }),
    ),
  }),
});

export const GiftCardBody = Strict({ code: t.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9 -]+$', error: 'The code field must be a gift card code.' }) });
export const GiftCardResponse = t.Object({ data: t.Object({ last4: t.String(), balance: Int({ description: 'cents' }), expires_at: t.Nullable(t.String()) }) });

export const UpdateCheckQuery = Strict({ platform: Platform, version: Version('version') });
export const UpdateCheckResponse = t.Object({
  data: t.Object({
    platform: t.String(),
    current_version: t.String(),
    latest_version: t.Nullable(t.String()),
    update_available: t.Boolean(),
    mandatory: t.Boolean({ description: 'the running version is below the manifest\'s min_version' }),
    url: t.Nullable(t.String()),
    notes: t.Nullable(t.String()),
  }),
});
export const PushRegisterBody = Strict({
  token: t.String({ minLength: 1, maxLength: 4096, pattern: '^[\\x21-\\x7e]+$', error: 'The token field must be a push token.' }),
  platform: Platform,
  app_version: t.Optional(Version('app_version')),
});
export const Success = t.Object({ status: t.Literal('success') });
