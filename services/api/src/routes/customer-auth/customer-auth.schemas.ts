import { t } from 'elysia';
import { Int } from '../shared.schemas.ts';

const Slug = t.String({ minLength: 1, maxLength: 100, description: 'the merchant slug (a customer belongs to one merchant)' });
const PhoneField = t.Optional(t.String({ minLength: 1, maxLength: 32, description: 'phone, national (read in the merchant\'s country) or international' }));
const EmailField = t.Optional(t.String({ minLength: 1, maxLength: 254 }));

export const SendOtpBody = t.Object({
  slug: Slug,
  phone: PhoneField,
  email: EmailField,
  // Empty or null is "no response" (an unsolved or switched-off widget posts its empty value): spec 1 section 7 answers it 403 CAPTCHA_REQUIRED, or lets it pass while no secret is configured.
  'challenge-response': t.Optional(t.Union([t.String({ maxLength: 4096 }), t.Null()], { description: 'bot challenge token; required while the challenge secret is configured (empty or null: none)' })),
});

export const SendOtpResponse = t.Object({ status: t.Literal('success'), channel: t.Union([t.Literal('sms'), t.Literal('email')]), expires_at: t.String() });

export const LoginBody = t.Object({
  slug: Slug,
  phone: PhoneField,
  email: EmailField,
  code: t.String({ pattern: '^[0-9]{6}$', maxLength: 6, error: 'The code field must be 6 digits.' }),
});

export const IdpLoginBody = t.Object({
  slug: Slug,
  credential: t.String({ minLength: 1, maxLength: 8192, description: 'OpenID Connect ID token of the identity provider' }),
  location_id: t.Optional(t.String({ maxLength: 64, description: 'the location the customer came from (kept on the timeline)' })),
});

export const CustomerView = t.Object({
  id: t.String(),
  name: t.Nullable(t.String()),
  email: t.Nullable(t.String()),
  phone: t.Nullable(t.String()),
  marketing_consent: t.Boolean(),
  created_at: t.String(),
  updated_at: t.String(),
});

export const LoginResponse = t.Object({
  status: t.Literal('success'),
  token: t.String(),
  token_type: t.Literal('Bearer'),
  expires_in: Int(),
  created: t.Boolean(),
  customer: CustomerView,
});
