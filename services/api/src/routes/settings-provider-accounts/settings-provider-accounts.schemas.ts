import { t } from 'elysia';
import { ID_MAX_LENGTH, Paging, queryInt, Int } from '../shared.schemas.ts';
import { PaymentProfileResponse } from '../settings/settings.schemas.ts';

const Iso = t.String({ format: 'date-time' });
const HttpUrl = (field: string) => t.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$', error: `The ${field} field must be a valid http(s) URL.` });

export { PaymentProfileResponse };

export const OnboardingBody = t.Object(
  {
    return_url: t.Optional(HttpUrl('return url')),
    refresh_url: t.Optional(HttpUrl('refresh url')),
    country: t.Optional(t.String({ pattern: '^[A-Z]{2}$', maxLength: 2, error: 'The country field must be a two-letter ISO country code.' })),
  },
  { additionalProperties: false },
);
export const OnboardingResponse = t.Object({ data: t.Object({ url: t.String(), expires_at: Iso, account_id: t.String() }) });
export const AccountSessionResponse = t.Object({ data: t.Object({ account_id: t.String(), client_secret: t.String(), expires_at: Iso }) });

const Payout = t.Object({
  id: t.String(),
  amount: Int({ description: 'cents' }),
  currency: t.String(),
  status: t.String(),
  description: t.Nullable(t.String()),
  arrival_date: Iso,
  created_at: Iso,
});
export const PayoutsQuery = t.Object({
  limit: t.Optional(queryInt('limit', 100, 'payouts per page, 1-100 (default 10)')),
  starting_after: t.Optional(t.String({ maxLength: ID_MAX_LENGTH, pattern: '^po_[A-Za-z0-9]+$', error: 'The starting after field must be a payout id.' })),
  vendor_id: t.Optional(t.String({ maxLength: ID_MAX_LENGTH })),
});
export const PayoutsResponse = t.Object({ data: t.Array(Payout), has_more: t.Boolean() });
export const PayoutTableQuery = t.Object({ ...Paging, vendor_id: t.Optional(t.String({ maxLength: ID_MAX_LENGTH })) });
export const PayoutTable = t.Object({ data: t.Array(Payout), total: Int(), page: Int(), per_page: Int() });

const Account = t.Object({
  account_id: t.String(),
  charges_enabled: t.Boolean(),
  payouts_enabled: t.Boolean(),
  details_submitted: t.Boolean(),
  statement_descriptor: t.Nullable(t.String()),
  business_website: t.Nullable(t.String()),
  payout_schedule: t.Object({ interval: t.String(), weekly_anchor: t.Nullable(t.String()), monthly_anchor: t.Nullable(Int()), delay_days: Int() }),
});
export const AccountResponse = t.Object({ data: Account });
export const DescriptorBody = t.Object(
  { statement_descriptor: t.String({ minLength: 5, maxLength: 22, error: 'The statement descriptor field must be between 5 and 22 characters.' }) },
  { additionalProperties: false },
);
export const WebsiteBody = t.Object({ url: HttpUrl('url') }, { additionalProperties: false });
export const PayoutScheduleBody = t.Object(
  {
    interval: t.Union([t.Literal('manual'), t.Literal('daily'), t.Literal('weekly'), t.Literal('monthly')], { error: 'The interval field must be one of manual, daily, weekly or monthly.' }),
    weekly_anchor: t.Optional(
      t.Union(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((d) => t.Literal(d)), { error: 'The weekly anchor field must be a weekday (monday-sunday).' }),
    ),
    monthly_anchor: t.Optional(Int({ minimum: 1, maximum: 31, error: 'The monthly anchor field must be a day of the month (1-31).' })),
  },
  { additionalProperties: false },
);
export const CardBAccountBody = t.Object(
  { account_id: t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', error: 'The account id field must be a card-b merchant account id.' }) },
  { additionalProperties: false },
);
export const AttachPaymentMethodBody = t.Object(
  { payment_method: t.String({ minLength: 4, maxLength: 100, pattern: '^pm_[A-Za-z0-9_]+$', error: 'The payment method field must be a card-a payment method id.' }) },
  { additionalProperties: false },
);
export const AttachPaymentMethodResponse = t.Object({
  data: t.Object({
    id: t.String(),
    name: t.String(),
    card_a_customer_id: t.Nullable(t.String()),
    created_at: Iso,
    updated_at: Iso,
    payment_method: t.Object({ id: t.String(), brand: t.String(), last4: t.String(), exp_month: Int(), exp_year: Int() }),
  }),
});
