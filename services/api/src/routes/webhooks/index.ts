import { Elysia, type AnyElysia } from 'elysia';
import { AppError } from '@pos/kernel';
import { isAddressAllowed, parseAllowList } from '@pos/core/devices/ip-allow-list';
import { handleCardAWebhook } from '@pos/core/webhooks/card-a-webhook';
import { handleCardBWebhook, type WebhookDeps } from '@pos/core/webhooks/card-b-webhook';
import { handlePlatformAWebhook } from '@pos/core/webhooks/platform-a-webhook';
import { verifyCardASignature, verifyUrlBodyHmacBase64 } from '@pos/providers/webhooks/verify';
import type { ApiDeps } from '../../context.ts';
import type { ApiMetrics } from '../../plugins/metrics.ts';
import * as S from './webhooks.schemas.ts';
import { webhookLogRoutes } from '../webhook-logs/index.ts';
import { integrationWebhookRoutes } from './integration-webhooks.ts';
import { oauthCallbackRoutes } from './oauth-callbacks.ts';

/** Every refused verification answers the same, so nothing tells a caller which check failed or whether a tenant exists. */
export const WEBHOOK_REFUSED = 'Webhook verification failed.';
const refused = () => new AppError('invalid_token', WEBHOOK_REFUSED);
export const NOT_CONFIGURED = 'Webhook verification is not configured';

const tags = ['Webhooks'];
const RECEIVED = { received: true as const };

/** card-a endpoint secrets: per country (`CARD_A_WEBHOOK_SECRETS`, JSON) over the default (`CARD_A_WEBHOOK_SECRET`). */
export function cardASecrets(config: ApiDeps['config']): (country: string) => string | null {
  let perCountry: Record<string, string> = {};
  if (config.CARD_A_WEBHOOK_SECRETS) {
    const parsed: unknown = JSON.parse(config.CARD_A_WEBHOOK_SECRETS);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('CARD_A_WEBHOOK_SECRETS must be a JSON object of country code -> secret');
    perCountry = Object.fromEntries(Object.entries(parsed as Record<string, unknown>).map(([k, v]) => {
      if (typeof v !== 'string' || v.length < 8) throw new Error(`CARD_A_WEBHOOK_SECRETS: the secret of ${k} must be a string of 8 or more characters`);
      return [k.toUpperCase(), v];
    }));
  }
  return (country) => perCountry[country.toUpperCase()] ?? config.CARD_A_WEBHOOK_SECRET ?? null;
}

/** The raw bytes received (the request guard let them through unparsed, size-checked) and their text. */
async function rawOf(request: Request): Promise<{ bytes: Uint8Array; text: string }> {
  const bytes = new Uint8Array(await request.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = '';
  }
  return { bytes, text };
}

/**
 * Inbound provider webhooks (spec 3 section 4, issue 13), mounted under `/api`. Bodies arrive raw
 * (`body-policy.ts` webhook rows); each route verifies the bytes received, then answers 2xx whatever
 * became of the event (spec 3 section 6: errors are logged with the event id and stored).
 */
/** What the webhook handlers run with (the routes and the back-office replay share it). */
export function webhookHandlerDeps(deps: ApiDeps, metrics?: ApiMetrics): WebhookDeps {
  return {
    db: deps.db,
    redis: deps.redis,
    providers: deps.payments,
    log: deps.log,
    now: () => deps.clock.now(),
    commissionBps: Number(deps.config.CARD_B_COMMISSION_BPS ?? 0),
    invoiceCommission: { resellerBps: Number(deps.config.CARD_A_RESELLER_COMMISSION_BPS ?? 0), collectionBps: Number(deps.config.CARD_A_INVOICE_COLLECTION_BPS ?? 0) },
    count: (provider, outcome) => metrics?.webhooks.inc({ provider, outcome: outcome === 'location_not_resolved' ? 'unresolved' : outcome }),
  };
}

export function webhookRoutes(deps: ApiDeps, metrics?: ApiMetrics): AnyElysia {
  const count = (provider: string, outcome: string) => metrics?.webhooks.inc({ provider, outcome: outcome === 'location_not_resolved' ? 'unresolved' : outcome });
  const secretFor = cardASecrets(deps.config);
  const cardBAllowed = parseAllowList(deps.config.CARD_B_WEBHOOK_IPS, 'CARD_B_WEBHOOK_IPS');
  const handlerDeps = webhookHandlerDeps(deps, metrics);
  /** received, then verified or rejected; the handler counts what became of the event. */
  const gate = (provider: string, ok: boolean) => {
    count(provider, 'received');
    count(provider, ok ? 'verified' : 'rejected');
    if (!ok) throw refused();
  };
  const skipCardA = deps.env === 'local';
  // The handlers never throw (they log and store every failure); should one ever do, the provider still
  // gets its 2xx once verification passed (spec 3 section 6) and the failure is logged and counted.
  const afterVerified = (provider: string) => (e: unknown) => {
    deps.log.error('webhook handler failed after verification', { provider, err: e });
    count(provider, 'failed');
  };
  return new Elysia({ name: 'webhooks' })
    .post(
      '/card-a-webhook/:countryCode',
      async ({ request, params, headers }) => {
        const raw = await rawOf(request);
        if (!skipCardA) {
          const secret = secretFor(params.countryCode);
          const v = secret
            ? verifyCardASignature({ header: headers['card-a-signature'], rawBody: raw.bytes, secret, nowSeconds: Math.floor(deps.clock.now().getTime() / 1000) })
            : ({ ok: false, reason: 'mismatch' } as const);
          if (!v.ok) deps.log.warn('card-a webhook refused', { reason: v.reason, country: params.countryCode, configured: secret !== null });
          gate('card-a', v.ok);
        } else gate('card-a', true);
        await handleCardAWebhook(handlerDeps, raw.text, params.countryCode.toUpperCase()).catch(afterVerified('card-a'));
        return RECEIVED;
      },
      {
        parse: 'none',
        params: S.CardAParams,
        response: { 200: S.Received },
        detail: {
          tags,
          summary: 'card-a webhook',
          description:
            '`Card-A-Signature: t=…,v1=…`: HMAC-SHA256 with the country\'s endpoint secret over `"{t}.{raw body}"`, any `v1` may match, timestamps older than 300 s refused (not checked when `APP_ENV=local`). 401 `Webhook verification failed.` otherwise. Once verified the answer is always `{received: true}`.',
        },
      },
    )
    .get(
      '/card-b-webhook/:countryCode/:eventTypeId',
      () => {
        if (!deps.config.CARD_B_WEBHOOK_KEY) throw new AppError('unavailable', NOT_CONFIGURED);
        return { Key: deps.config.CARD_B_WEBHOOK_KEY };
      },
      { params: S.CardBParams, response: { 200: S.CardBKey }, detail: { tags, summary: 'card-b webhook handshake', description: 'Answers `{"Key": …}`, the verification key (`CARD_B_WEBHOOK_KEY`); 503 `Webhook verification is not configured` without one.' } },
    )
    .post(
      '/card-b-webhook/:countryCode/:eventTypeId',
      async ({ request, params, server }) => {
        const address = deps.clientAddress(request, server);
        const allowed = isAddressAllowed(cardBAllowed, address);
        if (!allowed) deps.log.warn('card-b webhook refused: source address not allowed', { address });
        gate('card-b', allowed);
        const raw = await rawOf(request);
        await handleCardBWebhook(handlerDeps, raw.text, params.eventTypeId).catch(afterVerified('card-b'));
        return RECEIVED;
      },
      {
        parse: 'none',
        params: S.CardBParams,
        response: { 200: S.Received },
        detail: {
          tags,
          summary: 'card-b webhook',
          description:
            'No signature: the source address must be in `CARD_B_WEBHOOK_IPS` (`X-Forwarded-For` believed only from `TRUSTED_PROXIES`); 401 `Webhook verification failed.` otherwise. Stored first (upserted on the SHA-256 of the body, with an occurrence count), duplicates detected, the tenant resolved from `Tags[0]`, `MerchantTrns` or the source code; always `{received: true}` once accepted.',
        },
      },
    )
    .post(
      '/webhook/platform-a',
      async ({ request, headers }) => {
        const key = deps.config.PLATFORM_A_WEBHOOK_SIGNATURE_KEY;
        const url = deps.config.PLATFORM_A_WEBHOOK_URL;
        if (!key || !url) {
          // Nothing to verify against: refused like a bad signature (spec 3 names 503 for delivery-b only).
          deps.log.warn('platform-a webhook refused: PLATFORM_A_WEBHOOK_SIGNATURE_KEY or PLATFORM_A_WEBHOOK_URL not configured');
          gate('platform-a', false);
          throw refused();
        }
        const raw = await rawOf(request);
        const v = verifyUrlBodyHmacBase64({ signature: headers['x-platform-a-hmacsha256-signature'], notificationUrl: url, rawBody: raw.bytes, key });
        if (!v.ok) deps.log.warn('platform-a webhook refused', { reason: v.reason });
        gate('platform-a', v.ok);
        await handlePlatformAWebhook(handlerDeps, raw.text).catch(afterVerified('platform-a'));
        return RECEIVED;
      },
      {
        parse: 'none',
        response: { 200: S.Received },
        detail: {
          tags,
          summary: 'platform-a webhook',
          description:
            '`x-platform-a-hmacsha256-signature`: base64 HMAC-SHA256 with `PLATFORM_A_WEBHOOK_SIGNATURE_KEY` over the subscribed notification URL (`PLATFORM_A_WEBHOOK_URL`) followed by the raw body; 401 `Webhook verification failed.` otherwise, and also while the key or URL is not configured. Each `event_id` acts once; terminal checkout status changes complete or fail the kiosk transaction. Always `{received: true}` once verified.',
        },
      },
    );
}

/** Mounted under `/api` as its own group (the app's route type is at the compiler's depth limit). */
export function webhookApi(deps: ApiDeps, metrics?: ApiMetrics): AnyElysia {
  const handlerDeps = webhookHandlerDeps(deps, metrics);
  return new Elysia({ prefix: '/api', name: 'webhooks-api' })
    .use(webhookRoutes(deps, metrics))
    .use(webhookLogRoutes(deps, handlerDeps))
    .use(integrationWebhookRoutes(deps, handlerDeps, metrics))
    .use(oauthCallbackRoutes(deps));
}
