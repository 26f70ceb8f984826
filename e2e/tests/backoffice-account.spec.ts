import { expect, test } from '../support/test.ts';
import { E2E, idpSimUrl, mailCatcherUrl } from '../support/stack-env.ts';
import { SoftAuthenticator } from '../../services/api/src/testing/soft-authenticator.ts';

interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Reads the catcher until a mail to `to` matching `pred` arrived (what the API really sent over SMTP). */
async function waitForMail(to: string, pred: (m: Mail) => boolean): Promise<Mail> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(mailCatcherUrl(`/messages?to=${encodeURIComponent(to)}`));
    const found = ((await res.json()) as { data: Mail[] }).data.filter(pred).at(-1);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail to ${to}`);
}

test.describe('back-office account: sign up, verify, password + OTP, passkey, identity provider', () => {
  test('the whole account lifecycle over HTTP', async ({ request }) => {
    const email = `e2e-owner-${Date.now()}@example.com`;
    const password = 'e2e correct horse 1';

    // 1. Sign up: verification_required, no token.
    const reg = await request.post('/api/back-office/register', { data: { name: 'Erin Owner', email, password, business_name: 'Erin Coffee' } });
    expect(reg.status()).toBe(200);
    expect(await reg.json()).toEqual({ status: 'verification_required', email });
    expect(await (await request.post('/api/login', { data: { email, password } })).json()).toEqual({ status: 'verification_required', email });

    // 2. The verification mail from the catcher; verify once.
    const verifyMail = await waitForMail(email, (m) => m.subject === 'Verify your e-mail address');
    const token = /Verification token: (\S+)/.exec(verifyMail.text)![1]!;
    expect(verifyMail.html).toContain(`verify-email?token=${token}`);
    expect((await request.post('/api/back-office/verify-email', { data: { token } })).status()).toBe(200);
    expect((await request.post('/api/back-office/verify-email', { data: { token } })).status()).toBe(422);

    // 3. Password sign-in, then turn the second factor on.
    const first = await (await request.post('/api/login', { data: { email, password } })).json();
    expect(first).toEqual({ token: expect.any(String), token_type: 'Bearer', expires_in: 43200 });
    const auth = { authorization: `Bearer ${first.token}` };
    const on = await request.put('/api/back-office/user-personal-info', { headers: auth, data: { name: 'Erin Owner', two_factor_enabled: true } });
    expect((await on.json()).data.two_factor_enabled).toBe(true);

    // 4. Password + OTP read from the mail.
    const pending = await (await request.post('/api/login', { data: { email, password } })).json();
    expect(pending).toEqual({ status: 'two_factor_required', email, login_token: expect.any(String) });
    expect((await request.post('/api/back-office/request-otp', { data: { login_token: pending.login_token } })).status()).toBe(200);
    const otpMail = await waitForMail(email, (m) => m.subject.startsWith('Your sign-in code'));
    const code = /is (\d{6})\./.exec(otpMail.text)![1]!;
    const viaOtp = await request.post('/api/back-office/verify-otp', { data: { login_token: pending.login_token, code } });
    expect(viaOtp.status()).toBe(200);
    const otpToken = (await viaOtp.json()).token as string;
    const me = await (await request.get('/api/back-office/user', { headers: { authorization: `Bearer ${otpToken}` } })).json();
    expect(me.data).toMatchObject({ email, name: 'Erin Owner', merchant: { name: 'Erin Coffee' } });

    // 5. Register a passkey (software authenticator, real attestation) and sign in with it.
    const signedIn = { authorization: `Bearer ${otpToken}` };
    const authenticator = new SoftAuthenticator(E2E.env.WEBAUTHN_ORIGIN, E2E.env.WEBAUTHN_RP_ID);
    const setup = (await (await request.get('/api/back-office/passkeys/setup', { headers: signedIn })).json()).data;
    const created = await request.post('/api/back-office/passkeys/setup', { headers: signedIn, data: { name: 'E2E key', response: authenticator.register(setup, 'packed') } });
    expect(created.status()).toBe(200);
    const listed = (await (await request.get('/api/back-office/passkeys', { headers: signedIn })).json()).data;
    expect(listed.map((p: { name: string }) => p.name)).toEqual(['E2E key']);
    const challenge = (await (await request.post('/api/back-office/passkeys')).json()).data;
    const viaPasskey = await request.post('/api/back-office/authenticate-passkey', { data: { response: authenticator.assert(challenge) } });
    expect(viaPasskey.status()).toBe(200);
    const pkToken = (await viaPasskey.json()).token as string;
    expect((await (await request.get('/api/back-office/user', { headers: { authorization: `Bearer ${pkToken}` } })).json()).data.email).toBe(email);

    // 6. Identity provider: the simulator signs an ID token for the same verified address.
    const nonce = `e2e-${Date.now()}`;
    const idToken = (await (await fetch(idpSimUrl('/_sim/id-token'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sub: `e2e-${Date.now()}`, email, email_verified: true, nonce }) })).json()) as { id_token: string };
    const viaIdp = await request.post('/api/login/idp', { data: { credential: idToken.id_token, nonce } });
    expect(viaIdp.status()).toBe(200);
    expect((await viaIdp.json()).token).toEqual(expect.any(String));

    // 7. Password reset through the mail.
    expect((await request.post('/api/back-office/forget-password', { data: { email } })).status()).toBe(200);
    const resetMail = await waitForMail(email, (m) => m.subject === 'Reset your password');
    const resetToken = /Reset token: (\S+)/.exec(resetMail.text)![1]!;
    expect((await request.put('/api/back-office/update-password', { data: { token: resetToken, password: 'e2e new password 2' } })).status()).toBe(200);
    expect((await request.post('/api/login', { data: { email, password } })).status()).toBe(422);
  });
});
