import { t } from 'elysia';
import { Phone, Int } from '../shared.schemas.ts';

export const LoginBody = t.Object({
  email: t.String({ format: 'email', maxLength: 255, error: 'The email field must be a valid email address.' }),
  password: t.String({ minLength: 1, maxLength: 255, error: 'The password field is required.' }),
});

export const TokenResponse = t.Object({ token: t.String(), token_type: t.Literal('Bearer'), expires_in: Int() });
export const LoginResponse = t.Union([
  TokenResponse,
  t.Object({ status: t.Literal('verification_required'), email: t.String() }),
  // Issue 18: the pending sign-in of a two-factor account (request-otp, verify-otp).
  t.Object({ status: t.Literal('two_factor_required'), email: t.String(), login_token: t.String() }),
]);

export const Success = t.Object({ status: t.Literal('success') });

export const ValidateTokenResponse = t.Object({ status: t.Literal('success'), type: t.String(), expires_at: t.String() });

export const Profile = t.Object({
  id: t.String(),
  name: t.String(),
  email: t.String(),
  phone: t.Nullable(t.String()),
  business_info: t.Record(t.String(), t.Unknown()),
  is_global_admin: t.Boolean(),
  two_factor_enabled: t.Boolean(),
  merchant: t.Object({ id: t.String(), slug: t.String(), name: t.String(), pos_provider: t.Nullable(t.String()), started_at: t.Nullable(t.String()) }),
});

export const PersonalInfoBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 255 }),
  phone: t.Optional(t.Nullable(Phone())),
  /** Issue 18: password sign-in then needs the e-mailed code. */
  two_factor_enabled: t.Optional(t.Boolean()),
});

export const BusinessInfoBody = t.Object(
  {
    company_name: t.Optional(t.String({ maxLength: 255 })),
    vat_number: t.Optional(t.String({ maxLength: 32 })),
    address: t.Optional(t.String({ maxLength: 255 })),
    city: t.Optional(t.String({ maxLength: 120 })),
    postal_code: t.Optional(t.String({ maxLength: 20 })),
    country: t.Optional(t.String({ minLength: 2, maxLength: 2 })),
  },
  { additionalProperties: false },
);

export const Option = t.Object({ value: t.String(), label: t.String() }, { additionalProperties: true });
export const OptionList = t.Object({ data: t.Array(Option) });

export const SetMerchantBody = t.Object({ merchant_id: t.String({ format: 'uuid' }) });

export const Features = t.Object({
  first_party_pos: t.Boolean(),
  first_party_pos_selectable: t.Boolean(),
  kiosk: t.Boolean(),
  kitchen_display: t.Boolean(),
  test_mode: t.Boolean(),
});

export const InvitationDetails = t.Object({
  merchant_name: t.String(),
  email: t.String(),
  name: t.String(),
  expires_at: t.String(),
  requires_password: t.Boolean(),
});

export const JoinMerchantBody = t.Object({
  token: t.String({ minLength: 16, maxLength: 200 }),
  password: t.Optional(t.String({ minLength: 8, maxLength: 255 })),
  name: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
});

export const Bootstrap = t.Object({
  user: Profile,
  merchant_options: t.Array(Option),
  location_options: t.Array(Option),
  unread_notifications: t.Array(t.Object({ id: t.String(), title: t.String(), body: t.String(), created_at: t.String() })),
  features: Features,
  locations: t.Array(
    t.Object({
      id: t.String(),
      name: t.String(),
      timezone: t.String(),
      status: t.String(),
      channels: t.Object({ pos: t.Boolean(), kiosk: t.Boolean(), kitchen_display: t.Boolean() }),
      pricing: t.Object({ currency: t.String(), prices_include_vat: t.Boolean(), vat_rates: t.Array(t.Number()) }),
      ordering: t.Object({ dining_options: t.Array(t.String()) }),
    }),
  ),
});
