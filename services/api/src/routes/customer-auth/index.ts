import { Elysia, type AnyElysia } from 'elysia';
import { TOKEN_LIFETIME_SECONDS } from '@pos/core/auth/principal';
import { checkChallenge, loginWithIdp, otpDestinationKey, loginWithOtp, merchantBySlug, sendCustomerOtp, type MerchantTenant } from '@pos/core/customers/customer-login';
import { customerView } from '@pos/core/customers/customer-views';
import { recordVisit } from '@pos/core/customers/timeline';
import type { CustomerRow } from '@pos/core/customers/customers';
import type { ApiDeps } from '../../context.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import { customerLoginProviders } from './customer-providers.ts';
import * as S from './customer-auth.schemas.ts';

const doc = (summary: string, description: string) => ({ tags: ['Customer'], summary, description });

/**
 * The customer guest routes (spec 1 "Authentication routes (guest)", customer rows): OTP by SMS or
 * e-mail behind the bot challenge, OTP login and identity-provider login. The whole guest prefix is
 * throttled 20 per minute per client address (spec 1 section 8). A customer belongs to the merchant
 * named by `slug`: the same phone at two merchants is two customers (one tenant schema each).
 */
export function customerAuthRoutes(deps: ApiDeps): AnyElysia {
  return customerAuthRoutesTyped(deps);
}

function customerAuthRoutesTyped(deps: ApiDeps) {
  const providers = customerLoginProviders(deps.config);
  const now = () => deps.clock.now();
  // A transform hook: it runs before the body's validation, so refused bodies count too (spec 1 section 8).
  const guard = ({ request, server }: { request: Request; server: unknown }) => throttle(deps.redis, deps.env, [[THROTTLES.customerGuest, deps.throttleAddress(request, server as never)]]);
  // Codes sent to one phone or address, whoever asks (SMS flooding, guessing across many live codes).
  // And per merchant: the message carries the merchant's name, which whoever registers a merchant chooses.
  // One client address sends a bounded share of the merchant's codes, so it cannot spend them all.
  const limitSends = (merchantId: string, address: string) => (destination: string) =>
    throttle(deps.redis, deps.env, [
      [THROTTLES.customerOtpDestination, otpDestinationKey(destination)],
      [THROTTLES.customerOtpMerchantAddress, `${merchantId}|${address}`],
      [THROTTLES.customerOtpMerchant, merchantId],
    ]);
  const spendOnce = async (key: string, until: Date) =>
    (await deps.redis.set(`customer-idp-token:${key}`, '1', 'PX', Math.max(1000, until.getTime() - Date.now() + 60_000), 'NX')) === 'OK';
  const session = async (t: MerchantTenant, r: { customer: CustomerRow; created: boolean }) => ({
    status: 'success' as const,
    token: await deps.tokens.sign({ type: 'customer', sub: r.customer.id, merchant_id: t.merchant.id, tenant_database: t.merchant.tenant_database }),
    token_type: 'Bearer' as const,
    expires_in: TOKEN_LIFETIME_SECONDS.customer,
    created: r.created,
    customer: customerView(r.customer),
  });
  return new Elysia({ name: 'customer-auth' })
    .post(
      '/customer/send-otp',
      async ({ body, request, server }) => {
        await checkChallenge(providers, body['challenge-response'] ?? undefined, deps.clientAddress(request, server as never));
        const t = await merchantBySlug(deps.db, body.slug);
        const r = await sendCustomerOtp(providers, t, body, now(), limitSends(t.merchant.id, deps.throttleAddress(request, server as never)));
        return { status: 'success' as const, channel: r.channel, expires_at: r.expires_at.toISOString() };
      },
      {
        transform: guard,
        body: S.SendOtpBody,
        response: { 200: S.SendOtpResponse },
        detail: doc(
          'Send a login code',
          'Sends a 6-digit code, valid 15 minutes and stored hashed (it replaces the earlier codes of the destination: only the newest is valid), by SMS to `phone` or by e-mail to `email` (exactly one). While the bot-challenge secret is configured, `challenge-response` is required: 403 with code `CAPTCHA_REQUIRED` without it, `CAPTCHA_INVALID` when the challenge service refuses it or cannot be reached. Unknown `slug`: 404. Throttle: the customer guest prefix, 20 per minute per client address, 5 codes per destination per 15 minutes (an e-mail address counts as its inbox: `name+tag@` is `name@`), and 300 codes per merchant an hour (429). The message names the merchant (its first 40 characters).',
        ),
      },
    )
    .post(
      '/customer/login',
      async ({ body }) => {
        const t = await merchantBySlug(deps.db, body.slug);
        return session(t, await loginWithOtp(providers, t, body, now()));
      },
      {
        transform: guard,
        body: S.LoginBody,
        response: { 200: S.LoginResponse },
        detail: doc(
          'Log in with a code',
          'Spends a live code sent to `phone` or `email` and answers a customer token (type `customer`) for the merchant of `slug`; the first login enrols the customer. A wrong, spent, replaced or expired code: 422 on `code`. A contact identifies an existing account only if a sign-in verified it there, or if the account has no verified contact at all; otherwise the contact is taken from that account and the signer gets their own. Throttle: customer guest prefix.',
        ),
      },
    )
    .post(
      '/customer/login/idp',
      async ({ body }) => {
        const t = await merchantBySlug(deps.db, body.slug);
        const r = await loginWithIdp(providers, t, body.credential, now(), spendOnce);
        if (body.location_id) await recordVisit(t.db, r.customer.id, body.location_id, now());
        return session(t, r);
      },
      {
        transform: guard,
        body: S.IdpLoginBody,
        response: { 200: S.LoginResponse },
        detail: doc(
          'Log in with an identity-provider credential',
          'Verifies the OpenID Connect ID token in `credential` against the provider\'s keys (issuer, audience, expiry) and answers a customer token. The customer is found by the provider subject, else by the verified e-mail, else enrolled. An invalid credential: 422 on `credential`; a credential already used (at any merchant): 422 on `credential`, `This identity credential has already been used.` Throttle: customer guest prefix.',
        ),
      },
    );
}
