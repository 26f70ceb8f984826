import { Elysia, t } from 'elysia';
import { errors } from '@pos/kernel';
import { BAD_CREDENTIALS, isBadCredentials, signIn } from '@pos/core/identity/sign-in';
import { signSession } from '@pos/core/identity/sign-in-proof';
import { startPendingLogin } from '@pos/core/accounts/second-factor';
import { getProfile, startUsing, updateBusinessInfo, updatePersonalInfo } from '@pos/core/identity/profile';
import { merchantOptions, switchMerchant } from '@pos/core/identity/merchant-access';
import { backofficeBootstrap } from '@pos/core/identity/bootstrap';
import { merchantFeatures, providerStaging } from '@pos/core/identity/features';
import { TOKEN_LIFETIME_SECONDS } from '@pos/core/auth/principal';
import { bindTokenTenant } from '@pos/core/auth/tenant-context';
import { signedInCustomer } from '@pos/core/customers/customer-profile';
import { acceptInvitation, invitationDetails } from '@pos/core/team/accept-invitation';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { assertSessionLive, revokeToken } from '@pos/core/auth/revocation';
import { THROTTLES, countFailures, throttle } from '../../middleware/throttle.ts';
import { accountKey } from '@pos/core/shared/mailbox';
import * as S from './backoffice-auth.schemas.ts';

const tags = ['Back-office authentication'];

/** `POST /login` (guest), `GET /validate-token` (auth, any type). */
export function guestAuthRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'guest-auth' })
    .post(
      '/login',
      async ({ body, headers, server, request }) => {
        const address = deps.throttleAddress(request, server);
        await throttle(deps.redis, deps.env, [[THROTTLES.login, `${address}:${accountKey(body.email)}`]]);
        const r = await countFailures(deps.redis, deps.env, THROTTLES.loginAddressFailures, address, isBadCredentials, () => signIn(deps.db, body));
        if (r.kind === 'verification_required') return { status: 'verification_required' as const, email: r.email };
        // Issue 18: a second factor is due; the pending sign-in's token goes to request-otp / verify-otp.
        if (r.kind === 'two_factor_required') {
          const loginToken = await startPendingLogin(deps.db, r.proof, r.merchant.id, deps.clock.now());
          return { status: 'two_factor_required' as const, email: r.email, login_token: loginToken };
        }
        return signSession(deps.db, deps.tokens, r, () => errors.field('email', BAD_CREDENTIALS));
      },
      { body: S.LoginBody, response: { 200: S.LoginResponse }, detail: { tags, summary: 'Sign in with email and password', description: 'Throttles (429 `Too Many Attempts.`): 10 a minute per client address and e-mail, and 30 failed sign-ins an hour per client address whatever the account (after which every attempt from the address is 429 until the hour ends).' } },
    )
    .get('/back-office/join-merchant', async ({ query }) => ({ data: await invitationDetails(deps.db, query.token, deps.clock.now()) }), {
      query: t.Object({ token: t.String({ minLength: 16, maxLength: 200 }) }),
      response: { 200: t.Object({ data: S.InvitationDetails }) },
      detail: { tags, summary: 'Details of an open team invitation' },
    })
    .post(
      '/back-office/join-merchant',
      async ({ body }) => {
        const joined = await acceptInvitation(deps.db, body, deps.clock.now());
        const token = await deps.tokens.sign({ type: 'backoffice', sub: joined.user_id, merchant_id: joined.merchant_id, tenant_database: joined.tenant_database });
        return { token, token_type: 'Bearer' as const, expires_in: TOKEN_LIFETIME_SECONDS.backoffice };
      },
      { body: S.JoinMerchantBody, response: { 200: S.TokenResponse }, detail: { tags, summary: 'Accept a team invitation (a new account sets its password); answers a token' } },
    )
    .get(
      '/validate-token',
      async ({ headers }) => {
        const p = await authenticate(deps, headers.authorization);
        // A customer token is valid only while its customer exists (every customer route checks it too).
        if (p.type === 'customer') await signedInCustomer((await bindTokenTenant(deps.db, p.merchantId, p.tenantDatabase, deps.authCache)).db, p.customerId);
        return { status: 'success' as const, type: p.type, expires_at: new Date(p.exp * 1000).toISOString() };
      },
      { response: { 200: S.ValidateTokenResponse }, detail: { tags, summary: 'Validate a token of any type', security: [{ bearer: [] }] } },
    );
}

/** Routes of "Back-office authenticated user" (auth, type:backoffice). */
export function backofficeUserRoutes(deps: ApiDeps) {
  const doc = (summary: string, description?: string) => ({ detail: { tags, summary, ...(description ? { description } : {}), security: [{ bearer: [] }] } });
  return new Elysia({ name: 'backoffice-user' })
    .use(secured(deps, { types: ['backoffice'] }))
    .post(
      '/logout',
      async ({ auth }) => {
        await revokeToken(deps.redis, auth.jti, auth.exp);
        return { status: 'success' as const };
      },
      { response: { 200: S.Success }, ...doc('Sign out: the token stops working') },
    )
    .post(
      '/back-office/start-using',
      async ({ tenant }) => {
        await startUsing(deps.db, tenant.merchant.id, deps.clock.now());
        return { status: 'success' as const };
      },
      { response: { 200: S.Success }, ...doc('Mark the merchant as started') },
    )
    .get('/back-office/user', async ({ auth }) => ({ data: await getProfile(deps.db, auth.userId, auth.merchantId) }), {
      response: { 200: t.Object({ data: S.Profile }) },
      ...doc('Current profile'),
    })
    .put(
      '/back-office/user-personal-info',
      async ({ auth, body }) => {
        await updatePersonalInfo(deps.db, auth.userId, body);
        return { data: await getProfile(deps.db, auth.userId, auth.merchantId) };
      },
      { body: S.PersonalInfoBody, response: { 200: t.Object({ data: S.Profile }) }, ...doc('Update name and phone') },
    )
    .put(
      '/back-office/user-business-info',
      async ({ auth, body }) => {
        await updateBusinessInfo(deps.db, auth.userId, body);
        return { data: await getProfile(deps.db, auth.userId, auth.merchantId) };
      },
      { body: S.BusinessInfoBody, response: { 200: t.Object({ data: S.Profile }) }, ...doc('Update business details') },
    )
    .get('/back-office/merchant-options', async ({ auth }) => ({ data: await merchantOptions(deps.db, auth.userId) }), {
      response: { 200: S.OptionList },
      ...doc("The user's merchants"),
    })
    .post(
      '/back-office/set-merchant',
      async ({ auth, body }) => {
        const m = await switchMerchant(deps.db, auth.userId, body.merchant_id);
        const token = await deps.tokens.sign({ type: 'backoffice', sub: auth.userId, merchant_id: m.id, tenant_database: m.tenant_database });
        // A password reset may have ended this session since it was authenticated: no new token from it.
        // Checked after signing (see SignInProof): a reset that starts later ends the new token as well.
        await assertSessionLive(deps.redis, { userId: auth.userId, jti: auth.jti });
        return { token, token_type: 'Bearer' as const, expires_in: TOKEN_LIFETIME_SECONDS.backoffice };
      },
      { body: S.SetMerchantBody, response: { 200: S.TokenResponse }, ...doc('Switch the active merchant; returns a new token', 'A merchant the user does not belong to, or whose team invitation they have not accepted yet, is 404.') },
    )
    .get(
      '/back-office/bootstrap',
      async ({ auth, tenant, access }) => ({ data: await backofficeBootstrap(deps.db, tenant.db, auth.userId, tenant.merchant, await access(), deps.clock.now(), providerStaging(deps.config, deps.env)) }),
      { response: { 200: t.Object({ data: S.Bootstrap }) }, ...doc("Boot payload for the caller's own merchant (no permission gate, no vendor override)") },
    )
    .get('/back-office/features', async ({ tenant }) => ({ data: await merchantFeatures(deps.db, tenant.db, tenant.merchant, deps.clock.now(), providerStaging(deps.config, deps.env)) }), {
      response: { 200: t.Object({ data: S.Features }) },
      ...doc('Feature flags of the current merchant'),
    })
    .get(
      '/back-office/visibility-options',
      () => ({ data: [{ value: 'visible', label: 'Visible' }, { value: 'hidden', label: 'Hidden' }, { value: 'unavailable', label: 'Sold out' }] }),
      { response: { 200: S.OptionList }, ...doc('Item visibility options') },
    )
    .get(
      '/back-office/item-pricing-options',
      () => ({ data: [{ value: 'fixed', label: 'Fixed price' }, { value: 'per_channel', label: 'Price per channel' }, { value: 'open', label: 'Open price' }] }),
      { response: { 200: S.OptionList }, ...doc('Item pricing options') },
    )
    .get(
      '/back-office/language-options',
      () => ({ data: [{ value: 'nl', label: 'Dutch' }, { value: 'fr', label: 'French' }, { value: 'de', label: 'German' }, { value: 'en', label: 'English' }] }),
      { response: { 200: S.OptionList }, ...doc('Languages a merchant can publish (Belgian languages and English)') },
    );
}
