import { t } from 'elysia';
import { Int, PathId } from '../shared.schemas.ts';

const Email = t.String({ format: 'email', maxLength: 255, error: 'The email field must be a valid email address.' });
const Password = t.String({ minLength: 8, maxLength: 255, error: 'The password field must be at least 8 characters.' });
const SecretToken = t.String({ minLength: 16, maxLength: 200, error: 'The token field is required.' });

export const RegisterBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 255, error: 'The name field is required.' }),
  email: Email,
  password: Password,
  business_name: t.String({ minLength: 1, maxLength: 255, error: 'The business name field is required.' }),
});
export const VerificationRequired = t.Object({ status: t.Literal('verification_required'), email: t.String() });
export const TokenBody = t.Object({ token: SecretToken });
export const EmailBody = t.Object({ email: Email });
export const UpdatePasswordBody = t.Object({ token: SecretToken, password: Password });
export const Success = t.Object({ status: t.Literal('success') });

export const LoginTokenBody = t.Object({ login_token: t.String({ minLength: 16, maxLength: 200, error: 'The login token field is required.' }) });
export const VerifyOtpBody = t.Object({
  login_token: t.String({ minLength: 16, maxLength: 200, error: 'The login token field is required.' }),
  code: t.String({ pattern: '^[0-9]{6}$', maxLength: 6, error: 'The code must be 6 digits.' }),
});
export const TokenResponse = t.Object({ token: t.String(), token_type: t.Literal('Bearer'), expires_in: Int() });

export const IdpBody = t.Object({
  credential: t.String({ minLength: 20, maxLength: 8192, error: 'The credential field is required.' }),
  nonce: t.String({ minLength: 8, maxLength: 255, error: 'The nonce field is required.' }),
});

const B64 = (max: number) => t.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
const Transports = t.Optional(t.Array(t.String({ maxLength: 20 }), { maxItems: 8 }));

/** WebAuthn's RegistrationResponseJSON (browser `PublicKeyCredential.toJSON()`). */
export const RegistrationResponse = t.Object({
  id: B64(1024),
  rawId: B64(1024),
  type: t.Literal('public-key'),
  response: t.Object({
    clientDataJSON: B64(4096),
    attestationObject: B64(16384),
    authenticatorData: t.Optional(B64(8192)),
    transports: Transports,
    publicKeyAlgorithm: t.Optional(Int({ minimum: -65536, maximum: 65536 })),
    publicKey: t.Optional(B64(4096)),
  }),
  authenticatorAttachment: t.Optional(t.Union([t.Literal('platform'), t.Literal('cross-platform')])),
  clientExtensionResults: t.Object({}, { additionalProperties: true, maxProperties: 10 }),
});
export const PasskeyRegisterBody = t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 100 })), response: RegistrationResponse });

/** WebAuthn's AuthenticationResponseJSON. */
export const AuthenticationResponse = t.Object({
  id: B64(1024),
  rawId: B64(1024),
  type: t.Literal('public-key'),
  response: t.Object({
    clientDataJSON: B64(4096),
    authenticatorData: B64(8192),
    signature: B64(1024),
    userHandle: t.Optional(B64(512)),
  }),
  authenticatorAttachment: t.Optional(t.Union([t.Literal('platform'), t.Literal('cross-platform')])),
  clientExtensionResults: t.Object({}, { additionalProperties: true, maxProperties: 10 }),
});
export const AuthenticatePasskeyBody = t.Object({ response: AuthenticationResponse });

export const Passkey = t.Object({ id: t.String(), name: t.String(), created_at: t.String(), last_used_at: t.Nullable(t.String()) });
/** The options objects of @simplewebauthn/server, passed to `navigator.credentials.create/get` as they are. */
export const WebAuthnOptions = t.Object({ challenge: t.String() }, { additionalProperties: true });
/** Any id: one that is not a UUID is not found (404), as on every other `{id}` route. */
export const IdParam = t.Object({ id: PathId() });
/** `DELETE /back-office/passkeys` names the passkey in its body. */
export const PasskeyDeleteBody = t.Object({ id: t.String({ minLength: 1, maxLength: 64, error: 'The id field is required.' }) });
