import type { ApiConfig } from '../../context.ts';
import type { CustomerLoginProviders } from '@pos/core/customers/customer-login';
import { createSmsClient } from '@pos/providers/sms/sms-client';
import { createMailApiClient } from '@pos/providers/mail-api/mail-api-client';
import { createChallengeClient } from '@pos/providers/challenge/challenge-client';
import { IdTokenVerifier } from '@pos/providers/idp/id-token-verifier';

/** The customer-login providers from configuration; a channel without its variables is off. */
export function customerLoginProviders(c: ApiConfig): CustomerLoginProviders {
  return {
    sms: c.SMS_BASE_URL && c.SMS_API_KEY ? createSmsClient({ baseUrl: c.SMS_BASE_URL, apiKey: c.SMS_API_KEY }) : null,
    mail: c.MAIL_API_BASE_URL && c.MAIL_API_KEY ? createMailApiClient({ baseUrl: c.MAIL_API_BASE_URL, apiKey: c.MAIL_API_KEY, from: c.MAIL_API_FROM ?? 'no-reply@localhost' }) : null,
    // Empty secret: the challenge passes through (spec 1 section 7 rule 4).
    challenge: c.CHALLENGE_SECRET ? createChallengeClient({ baseUrl: c.CHALLENGE_BASE_URL ?? 'http://127.0.0.1:9', secret: c.CHALLENGE_SECRET }) : null,
    idp:
      c.CUSTOMER_IDP_JWKS_URL && c.CUSTOMER_IDP_ISSUER && c.CUSTOMER_IDP_CLIENT_ID
        ? new IdTokenVerifier({ jwksUrl: c.CUSTOMER_IDP_JWKS_URL, issuer: c.CUSTOMER_IDP_ISSUER, clientId: c.CUSTOMER_IDP_CLIENT_ID })
        : null,
    otpKey: `customer-otp:${c.JWT_SECRET}`,
  };
}
