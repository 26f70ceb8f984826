import { Elysia, type AnyElysia } from 'elysia';
import { AppError } from '@pos/kernel';
import type { WebhookDeps } from '@pos/core/webhooks/card-b-webhook';
import { handleIntegrationWebhook, type IntegrationWebhookSpec, type WebhookMeta } from '@pos/core/webhooks/integration-webhook';
import { CRM, DELIVERY_A_MENU, DELIVERY_A_ORDERS, DELIVERY_B, REGISTER_A, REGISTER_B, REGISTER_C, SHOP_A, registerAResource, shopName } from '@pos/core/webhooks/integration-providers';
import { connectionsByRef } from '@pos/core/integrations/connections';
import { decryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { parsePayload, obj } from '@pos/core/webhooks/payload';
import { verifyBasicAuth, verifyBearerToken, verifyBodyHmac, type VerifyResult } from '@pos/providers/webhooks/verify';
import type { ApiDeps } from '../../context.ts';
import type { ApiMetrics } from '../../plugins/metrics.ts';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './webhooks.schemas.ts';

export const WEBHOOK_REFUSED = 'Webhook verification failed.';
export const NOT_CONFIGURED = 'Webhook verification is not configured';
export const CRM_REFUSED = 'Invalid CRM webhook token';
export const SHOP_A_DEFAULT_SUFFIX = '.myshop-a.com';
const tags = ['Webhooks'];
const RECEIVED = { received: true as const };

/** The raw bytes as text (signatures are checked over the bytes; the handlers read the text). */
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

const hmacDoc = (header: string, secretVar: string, encoding: string, extra: string) =>
  `\`${header}\`: HMAC-SHA256 (${encoding}) with \`${secretVar}\` over the raw body; missing or wrong is 401 \`Webhook verification failed.\` (also while the secret is not configured). ${extra} Once verified the answer is always \`{received: true}\`; the event is stored in the webhook log, a repeated event id is stored as \`duplicate\` and changes nothing, an event naming no connected account is stored as \`location_not_resolved\`.`;

/**
 * The integration webhooks of spec 3 section 4 (issue 13 items 1-2): shop-a, delivery-a (orders,
 * menu), delivery-b, register-a, register-b, register-c and the CRM intake. Each verifies the raw bytes
 * with its own mechanism, then hands the text to the one integration handler with its provider
 * description; once verified the provider always gets 200 (spec 3 section 6).
 */
export function integrationWebhookRoutes(deps: ApiDeps, handlerDeps: WebhookDeps, metrics?: ApiMetrics): AnyElysia {
  const cfg = deps.config;
  const count = (provider: string, outcome: string) => metrics?.webhooks.inc({ provider, outcome });
  const gate = (provider: string, v: VerifyResult, message = WEBHOOK_REFUSED) => {
    count(provider, 'received');
    count(provider, v.ok ? 'verified' : 'rejected');
    if (!v.ok) {
      deps.log.warn(`${provider} webhook refused`, { reason: v.reason });
      throw new AppError('invalid_token', message);
    }
  };
  const unconfigured: VerifyResult = { ok: false, reason: 'mismatch' };
  const bodyHmac = (secret: string | undefined, signature: string | undefined, bytes: Uint8Array, encoding: 'hex' | 'base64'): VerifyResult =>
    secret ? verifyBodyHmac({ signature, rawBody: bytes, secret, encoding }) : unconfigured;
  const run = async (spec: IntegrationWebhookSpec, text: string, meta: WebhookMeta) => {
    await handleIntegrationWebhook(handlerDeps, spec, text, meta).catch((e: unknown) => {
      deps.log.error('webhook handler failed after verification', { provider: spec.provider, err: e });
      count(spec.provider, 'failed');
    });
    return RECEIVED;
  };
  const suffix = cfg.SHOP_A_SHOP_DOMAIN_SUFFIX ?? SHOP_A_DEFAULT_SUFFIX;
  const tokenKey = parseTokenKey(cfg.INTEGRATION_TOKEN_KEY);
  const raw = { parse: 'none' as const, response: { 200: S.Received } };

  return new Elysia({ name: 'integration-webhooks' })
    .post(
      '/shop-a-webhook',
      async ({ request, headers }) => {
        const r = await rawOf(request);
        gate('shop-a', bodyHmac(cfg.SHOP_A_WEBHOOK_SECRET, headers['x-shop-a-hmac-sha256'], r.bytes, 'base64'));
        return run(SHOP_A, r.text, {
          topic: headers['x-shop-a-topic']?.slice(0, 200) ?? null,
          webhook_id: headers['x-shop-a-webhook-id']?.slice(0, 200) ?? null,
          shop: shopName(headers['x-shop-a-shop-domain'], suffix),
        });
      },
      {
        ...raw,
        detail: {
          tags,
          summary: 'shop-a webhook',
          description: hmacDoc('X-Shop-A-Hmac-Sha256', 'SHOP_A_WEBHOOK_SECRET', 'base64', 'Topic in `X-Shop-A-Topic`, event id in `X-Shop-A-Webhook-Id`; the tenant is the connection of the shop named by `X-Shop-A-Shop-Domain` without the platform suffix (`SHOP_A_SHOP_DOMAIN_SUFFIX`). Order topics are recorded for import, product topics request a menu sync.'),
        },
      },
    )
    .post(
      '/webhook/delivery-a/orders',
      async ({ request, headers }) => {
        const r = await rawOf(request);
        gate('delivery-a', bodyHmac(cfg.DELIVERY_A_WEBHOOK_SECRET, headers['x-delivery-a-signature'], r.bytes, 'hex'));
        return run(DELIVERY_A_ORDERS, r.text, {});
      },
      { ...raw, detail: { tags, summary: 'delivery-a order webhook', description: hmacDoc('X-Delivery-A-Signature', 'DELIVERY_A_WEBHOOK_SECRET', 'hex', 'Body `{event_id, event_type, meta:{resource_id, user_id}}`; the tenant is the connection of store `meta.user_id`. Order lifecycle events are recorded for import.') } },
    )
    .post(
      '/webhook/delivery-a/menu',
      async ({ request, headers }) => {
        const r = await rawOf(request);
        gate('delivery-a', bodyHmac(cfg.DELIVERY_A_WEBHOOK_SECRET, headers['x-delivery-a-signature'], r.bytes, 'hex'));
        return run(DELIVERY_A_MENU, r.text, {});
      },
      { ...raw, detail: { tags, summary: 'delivery-a menu webhook', description: hmacDoc('X-Delivery-A-Signature', 'DELIVERY_A_WEBHOOK_SECRET', 'hex', 'Logged and not acted on (menu sync is push-only): stored as `ignored`.') } },
    )
    .post(
      '/webhook/delivery-b',
      async ({ request, headers }) => {
        if (!cfg.DELIVERY_B_WEBHOOK_SECRET) {
          count('delivery-b', 'received');
          count('delivery-b', 'rejected');
          deps.log.warn('delivery-b webhook refused: DELIVERY_B_WEBHOOK_SECRET not configured');
          throw new AppError('unavailable', NOT_CONFIGURED);
        }
        const r = await rawOf(request);
        gate('delivery-b', bodyHmac(cfg.DELIVERY_B_WEBHOOK_SECRET, headers['x-delivery-b-signature'], r.bytes, 'hex'));
        return run(DELIVERY_B, r.text, {});
      },
      {
        ...raw,
        detail: {
          tags,
          summary: 'delivery-b webhook',
          description: `503 \`${NOT_CONFIGURED}\` while \`DELIVERY_B_WEBHOOK_SECRET\` is not set. ${hmacDoc('X-Delivery-B-Signature', 'DELIVERY_B_WEBHOOK_SECRET', 'hex', 'Body `{event_id, event_type, store_id, order:{id}}`; order, cancel and scheduled-order notifications are recorded for the jobs.')}`,
        },
      },
    )
    .post(
      '/webhook/register-a',
      async ({ request, headers }) => {
        const r = await rawOf(request);
        // The key is the merchant's applicationId: the connection named by the (not yet trusted)
        // resource supplies it; an unknown resource cannot be verified and is refused like a bad signature.
        const keys = tokenKey ? await registerAKeys(deps, r.text, tokenKey) : [];
        let v: VerifyResult = unconfigured;
        for (const key of keys) {
          const attempt = verifyBodyHmac({ signature: headers['x-register-a-signature'], rawBody: r.bytes, secret: key, encoding: 'hex' });
          if (attempt.ok || v === unconfigured) v = attempt;
        }
        gate('register-a', v);
        return run(REGISTER_A, r.text, {});
      },
      {
        ...raw,
        detail: {
          tags,
          summary: 'register-a webhook',
          description:
            '`X-Register-A-Signature`: HMAC-SHA256 (hex) over the raw body keyed by the `applicationId` of the connection the body\'s `resource` (`store.<id>` or `company.<id>`) names; anything else (no such connection included) is 401 `Webhook verification failed.`. Body `{event, resource, content[]}`; the SHA-256 of the body is the event id (the register retries 5 times with the same body). `store.orders` is recorded for import; item and price events request a menu sync. Once verified the answer is always `{received: true}`.',
        },
      },
    )
    .post(
      '/webhook/register-b/:event',
      async ({ request, headers, params }) => {
        const r = await rawOf(request);
        gate('register-b', bodyHmac(cfg.REGISTER_B_WEBHOOK_SECRET, headers['x-register-b-signature'], r.bytes, 'hex'));
        return run(REGISTER_B, r.text, { event: params.event });
      },
      { ...raw, params: S.RegisterBParams, detail: { tags, summary: 'register-b webhook', description: hmacDoc('X-Register-B-Signature', 'REGISTER_B_WEBHOOK_SECRET', 'hex', 'The event type is the path\'s `{event}`; body `{id, account_id, ...}`, the tenant is the connection of `account_id`. Order events are recorded, article and price events request a menu sync.') } },
    )
    .post(
      '/webhook/register-c',
      async ({ request, headers }) => {
        const user = cfg.REGISTER_C_WEBHOOK_USERNAME;
        const pass = cfg.REGISTER_C_WEBHOOK_PASSWORD;
        gate('register-c', user && pass ? verifyBasicAuth({ authorization: headers.authorization, username: user, password: pass }) : unconfigured);
        const r = await rawOf(request);
        return run(REGISTER_C, r.text, {});
      },
      {
        ...raw,
        detail: {
          tags,
          summary: 'register-c webhook',
          description:
            'HTTP Basic with `REGISTER_C_WEBHOOK_USERNAME` and `REGISTER_C_WEBHOOK_PASSWORD`; anything else (or nothing configured) is 401 `Webhook verification failed.`. Body `{id, type, account_id, ...}`; the tenant is the connection of `account_id`. Once verified the answer is always `{received: true}`.',
        },
      },
    )
    .post(
      '/crm/intake',
      async ({ request, headers, server }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.crmIntake, deps.throttleAddress(request, server)]]);
        gate('crm', cfg.CRM_WEBHOOK_TOKEN ? verifyBearerToken({ authorization: headers.authorization, token: cfg.CRM_WEBHOOK_TOKEN }) : unconfigured, CRM_REFUSED);
        const r = await rawOf(request);
        return run(CRM, r.text, {});
      },
      {
        ...raw,
        detail: {
          tags,
          summary: 'CRM intake',
          description:
            '`Authorization: Bearer <CRM_WEBHOOK_TOKEN>`; anything else is 401 `Invalid CRM webhook token`. Throttle 60 per minute per client address (429). The event is stored (platform level, no tenant) and acknowledged `{received: true}`.',
        },
      },
    );
}

/** The applicationIds of the register-a connections the body's resource names (decrypted). */
async function registerAKeys(deps: ApiDeps, text: string, key: NonNullable<ReturnType<typeof parseTokenKey>>): Promise<string[]> {
  const payload = parsePayload(text);
  if (!payload) return [];
  const connections = await connectionsByRef(deps.db, 'register-a', registerAResource(obj(payload)));
  const keys = new Set<string>();
  for (const c of connections) {
    const k = c.webhookKeyEncrypted ? decryptSecret(key, c.webhookKeyEncrypted) : null;
    if (k) keys.add(k);
  }
  return [...keys].slice(0, 10);
}
