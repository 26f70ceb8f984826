import { Elysia, t } from 'elysia';
import { errors, hitThrottle, type ThrottleRule } from '@pos/kernel';
import { signSession } from '@pos/core/identity/sign-in-proof';
import { sha256 } from '@pos/core/accounts/account-tokens';
import { forgetPassword, registerAccount, resendVerification, updatePassword, verifyEmail, type AccountMailing } from '@pos/core/accounts/sign-up';
import { PENDING_INVALID, requestOtp, verifyOtp } from '@pos/core/accounts/second-factor';
import { IDP_NO_ACCOUNT, idpSignIn } from '@pos/core/accounts/idp-sign-in';
import { PASSKEY_REJECTED, authenticatePasskey, deletePasskey, listPasskeys, passkeyLoginOptions, passkeySetupOptions, registerPasskey, type RelyingParty } from '@pos/core/accounts/passkeys';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
import { idTokenVerifierFromEnv } from '@pos/providers/idp/id-token-verifier';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './accounts.schemas.ts';
import { mailboxKey } from '@pos/core/shared/mailbox';

const tags = ['Back-office accounts'];

/** Throttles of the account routes the spec leaves open (mail-sending and code-guessing routes), per client address. */
export const ACCOUNT_THROTTLES = {
  accountMail: { name: 'account-mail', limit: 6, windowSeconds: 60 },
  otpVerify: { name: 'otp-verify', limit: 10, windowSeconds: 60 },
  /** Second-factor codes tried on one user's sign-ins, whatever the sign-in or address (5 per sign-in is no bound on the account). */
  otpVerifyUser: { name: 'otp-verify-user', limit: 20, windowSeconds: 3600 },
  passkeyLogin: { name: 'passkey-login', limit: 20, windowSeconds: 60 },
  /** Reset and verification mails to one address (a hash of it), whoever asks: mail flooding. */
  accountMailRecipient: { name: 'account-mail-recipient', limit: 5, windowSeconds: 15 * 60 },
} as const satisfies Record<string, ThrottleRule>;

export function relyingParty(deps: ApiDeps): RelyingParty {
  const c = deps.config;
  return {
    id: c.WEBAUTHN_RP_ID ?? 'localhost',
    name: c.WEBAUTHN_RP_NAME ?? 'Ordering back office',
    origin: c.WEBAUTHN_ORIGIN ?? `http://localhost:${c.API_PORT ?? '3000'}`,
  };
}

/**
 * Issue 18 items 1-3: sign-up and e-mail tokens, the second factor, identity-provider and passkey
 * sign-in (guest), and the passkey management of the signed-in user.
 */
export function accountRoutes(deps: ApiDeps) {
  const mailing: AccountMailing = { db: deps.db, mailer: mailerFromEnv(deps.config), appUrl: deps.config.APP_URL ?? 'http://localhost:3000', log: deps.log };
  const verifier = idTokenVerifierFromEnv(deps.config);
  const rp = relyingParty(deps);
  const issue = (r: Parameters<typeof signSession>[2], field: string, message: string) => signSession(deps.db, deps.tokens, r, () => errors.field(field, message));
  const limit = (rule: ThrottleRule, request: Request, server: unknown) =>
    throttle(deps.redis, deps.env, [[rule, deps.throttleAddress(request, server as never)]]);
  // Counted for every address, known or not, and answered like any other request past the cap (the mail is
  // just not sent): the answer reveals neither the account nor the cap.
  const recipientUnderCap = async (email: string) =>
    deps.env === 'local' || (await hitThrottle(deps.redis, ACCOUNT_THROTTLES.accountMailRecipient, mailboxKey(email))).allowed;
  const doc = (summary: string) => ({ detail: { tags, summary } });
  const authDoc = (summary: string) => ({ detail: { tags, summary, security: [{ bearer: [] }] } });

  const guest = new Elysia({ name: 'account-guest' })
    .post(
      '/back-office/register',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.accountMail, request, server);
        const r = await registerAccount(mailing, body, deps.clock.now());
        return { status: 'verification_required' as const, email: r.email };
      },
      { body: S.RegisterBody, response: { 200: S.VerificationRequired }, ...doc('Register a merchant account; the verification mail is sent, no token') },
    )
    .post(
      '/back-office/verify-email',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.otpVerify, request, server);
        await verifyEmail(deps.db, body.token, deps.clock.now());
        return { status: 'success' as const };
      },
      { body: S.TokenBody, response: { 200: S.Success }, ...doc('Verify the e-mail address with the mailed token (single use)') },
    )
    .post(
      '/back-office/resend-verification',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.accountMail, request, server);
        if (!mailing.mailer || (await recipientUnderCap(body.email))) await resendVerification(mailing, body.email);
        return { status: 'success' as const };
      },
      { body: S.EmailBody, response: { 200: S.Success }, ...doc('Send a new verification mail (same answer for any address; at most 5 per address per 15 minutes)') },
    )
    .post(
      '/back-office/forget-password',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.accountMail, request, server);
        if (!mailing.mailer || (await recipientUnderCap(body.email))) await forgetPassword(mailing, body.email);
        return { status: 'success' as const };
      },
      { body: S.EmailBody, response: { 200: S.Success }, ...doc('Mail a password-reset token (same answer for any address; at most 5 per address per 15 minutes)') },
    )
    .put(
      '/back-office/update-password',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.otpVerify, request, server);
        await updatePassword(deps.db, deps.redis, body, deps.clock.now());
        return { status: 'success' as const };
      },
      { body: S.UpdatePasswordBody, response: { 200: S.Success }, ...doc('Set a new password with the mailed reset token (single use)') },
    )
    .post(
      '/back-office/request-otp',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.accountMail, request, server);
        await requestOtp(mailing, body.login_token, deps.clock.now());
        return { status: 'success' as const };
      },
      { body: S.LoginTokenBody, response: { 200: S.Success }, ...doc('Mail the 6-digit code of a sign-in waiting for its second factor') },
    )
    .post(
      '/back-office/verify-otp',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.otpVerify, request, server);
        const perUser = (userId: string) => throttle(deps.redis, deps.env, [[ACCOUNT_THROTTLES.otpVerifyUser, userId]]);
        return issue(await verifyOtp(deps.db, body, deps.clock.now(), perUser), 'login_token', PENDING_INVALID);
      },
      { body: S.VerifyOtpBody, response: { 200: S.TokenResponse }, ...doc('Complete the sign-in with the mailed code (5 attempts per sign-in, 20 per user per hour); answers a token') },
    )
    .post(
      '/login/idp',
      async ({ body }) => {
        return issue(await idpSignIn(deps.db, deps.redis, verifier, body, deps.clock.now()), 'credential', IDP_NO_ACCOUNT);
      },
      {
        // Before the body's validation: refused bodies count too (spec 1 section 8).
        transform: ({ request, server }) => throttle(deps.redis, deps.env, [[THROTTLES.loginIdp, deps.throttleAddress(request, server as never)]]),
        body: S.IdpBody,
        response: { 200: S.TokenResponse },
        ...doc('Sign in with an OpenID Connect ID token (throttle 5 per minute)'),
      },
    )
    .post(
      '/back-office/passkeys',
      async ({ request, server }) => {
        await limit(ACCOUNT_THROTTLES.passkeyLogin, request, server);
        return { data: await passkeyLoginOptions(deps.redis, rp) };
      },
      { response: { 200: t.Object({ data: S.WebAuthnOptions }) }, ...doc('WebAuthn challenge for a passkey sign-in') },
    )
    .post(
      '/back-office/authenticate-passkey',
      async ({ body, request, server }) => {
        await limit(ACCOUNT_THROTTLES.passkeyLogin, request, server);
        return issue(await authenticatePasskey(deps.db, deps.redis, rp, body.response as never, deps.clock.now()), 'response', PASSKEY_REJECTED);
      },
      { body: S.AuthenticatePasskeyBody, response: { 200: S.TokenResponse }, ...doc('Sign in with a passkey assertion; answers a token') },
    );

  const signedIn = new Elysia({ name: 'account-passkeys' })
    .use(secured(deps, { types: ['backoffice'] }))
    .get('/back-office/passkeys', async ({ auth }) => ({ data: await listPasskeys(deps.db, auth.userId) }), {
      response: { 200: t.Object({ data: t.Array(S.Passkey) }) },
      ...authDoc("The signed-in user's passkeys"),
    })
    .get('/back-office/passkeys/setup', async ({ auth }) => ({ data: await passkeySetupOptions(deps.db, deps.redis, rp, auth.userId) }), {
      response: { 200: t.Object({ data: S.WebAuthnOptions }) },
      ...authDoc('WebAuthn creation options for a new passkey'),
    })
    .post('/back-office/passkeys/setup', async ({ auth, body }) => ({ data: await registerPasskey(deps.db, deps.redis, rp, { userId: auth.userId, jti: auth.jti }, body as never, deps.clock.now()) }), {
      body: S.PasskeyRegisterBody,
      response: { 200: t.Object({ data: S.Passkey }) },
      ...authDoc('Register a passkey from its attestation'),
    })
    .delete(
      '/back-office/passkeys/:id',
      async ({ auth, params }) => {
        await deletePasskey(deps.db, auth.userId, params.id);
        return { status: 'success' as const };
      },
      { params: S.IdParam, response: { 200: S.Success }, ...authDoc('Delete one of your passkeys') },
    )
    // Spec 1 lists `DELETE /back-office/passkeys`: the passkey named in the body, as `/{id}` names it in the path.
    .delete(
      '/back-office/passkeys',
      async ({ auth, body }) => {
        await deletePasskey(deps.db, auth.userId, body.id);
        return { status: 'success' as const };
      },
      { body: S.PasskeyDeleteBody, response: { 200: S.Success }, ...authDoc('Delete one of your passkeys, named in the body (`{id}`)') },
    );

  return new Elysia({ name: 'accounts' }).use(guest).use(signedIn);
}
