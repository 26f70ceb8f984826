import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { DEVICE_TOKEN_TYPES, type DevicePrincipal } from '@pos/core/auth/principal';
import { activateDevice, type IssuedDevice } from '@pos/core/devices/activate-device';
import { getDeviceInfo } from '@pos/core/devices/get-device-info';
import { recordNetworkInfo } from '@pos/core/devices/record-network-info';
import { recordHeartbeat } from '@pos/core/devices/record-heartbeat';
import { logoutDevice } from '@pos/core/devices/logout-device';
import { listSwitchTargets } from '@pos/core/devices/list-switch-targets';
import { switchDevice } from '@pos/core/devices/switch-device';
import { announceDeviceRevoked } from '@pos/core/devices/device-revoked';
import { isAddressAllowed, parseAllowList } from '@pos/core/devices/ip-allow-list';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { requireType, checkDeviceKey } from '@pos/core/auth/caller-gates';
import { bindTokenTenant } from '@pos/core/auth/tenant-context';
import { loadDevice } from '@pos/core/auth/device-gates';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import * as S from './device-auth.schemas.ts';

const tags = ['Device authentication'];
const DEVICE_AUTH = { bearer: [] };

async function tokenResponse(deps: ApiDeps, d: IssuedDevice) {
  const token = await deps.tokens.sign({ type: d.type, sub: d.deviceId, merchant_id: d.merchant.id, tenant_database: d.merchant.tenant_database, ver: d.tokenVersion });
  return { token, device_details: { id: d.deviceId, location_id: d.locationId, merchant_slug: d.merchant.slug } };
}

/**
 * Spec 1 "Device authentication" under `/device-auth`. Device routes take the device token as bearer
 * plus `X-Client-API-Key` (spec 1 section 5 rule 3); activation takes neither.
 */
export function deviceAuthRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'device-auth', prefix: '/device-auth' })
    .use(deviceGuestRoutes(deps))
    .use(deviceAdminSwitchRoutes(deps))
    .use(deviceSessionRoutes(deps));
}

/** `POST /device-auth/activate` (no auth; throttled per client address). */
function deviceGuestRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'device-auth-guest' }).post(
    '/activate',
    async ({ body, headers, server, request }) => {
      await throttle(deps.redis, deps.env, [[THROTTLES.deviceActivate, deps.throttleAddress(request, server)]]);
      const issued = await activateDevice(deps.db, body.activation_code, deps.clock.now());
      await announceDeviceRevoked(deps.redis, issued.merchant.tenant_database, issued.deviceId, deps.log);
      return tokenResponse(deps, issued);
    },
    {
      body: S.ActivateBody,
      response: { 200: S.DeviceTokenResponse },
      detail: {
        tags,
        summary: 'Activate a device with its activation code',
        description:
          'No auth. Consumes the code once (a used code answers 422 `The activation code has already been used.`, an unknown one 422 `The selected activation code is invalid.`) and returns a device token whose `type` is the device type (pos, kiosk or kds; printers do not activate here). Older tokens of the device stop working. Throttled per client address.',
      },
    },
  );
}

/** Routes of an activated device: auth, type kiosk/kds/pos, device-key, tenant, subscription gate and liveness. */
function deviceSessionRoutes(deps: ApiDeps) {
  const doc = (summary: string, description: string) => ({ detail: { tags, summary, description, security: [DEVICE_AUTH] } });
  return new Elysia({ name: 'device-auth-session' })
    .post(
      '/logout',
      async ({ headers }) => {
        // `auth` only (spec): no subscription gate, so an unsubscribed kiosk can still sign out.
        const p = await authenticate(deps, headers.authorization);
        requireType(p, DEVICE_TOKEN_TYPES);
        checkDeviceKey(headers['x-client-api-key'], deps.config.DEVICE_API_KEY);
        await logoutDevice(deps.db, p.merchantId, (p as DevicePrincipal).deviceId, deps.clock.now());
        await announceDeviceRevoked(deps.redis, (p as DevicePrincipal).tenantDatabase, (p as DevicePrincipal).deviceId, deps.log);
        return { status: 'success' as const };
      },
      { response: { 200: S.Success }, ...doc('Log the device out', 'Any device token (pos, kiosk, kds). Bumps the device\'s token version: every token it holds stops working (401 `Invalid token`). The staff sessions opened on the device end too (their tokens answer 401 `Invalid POS staff token`), each with its fiscal work-out queued, as pin-logout does.') },
    )
    .use(secured(deps, { types: ['kiosk', 'kds', 'pos'], deviceKey: true }))
    .get(
      '/user',
      async ({ tenant, device }) => ({ data: await getDeviceInfo(tenant.db, tenant.merchant, device!.id) }),
      {
        response: { 200: S.DeviceInfoResponse },
        ...doc(
          'Device info',
          'The spec lists `tenant:kiosk,kds`; pos tokens are accepted too because the first-party register uses this route. Kiosk and kds tokens without an active subscription get 402.',
        ),
      },
    )
    .post('/network-info', async ({ tenant, device, body }) => ({ status: 'success' as const, network_info: await recordNetworkInfo(tenant.db, device!.id, body, deps.clock.now()) }), {
      body: S.NetworkInfoBody,
      response: { 200: S.NetworkInfoResponse },
      ...doc('Report network info', 'Stores the report (replacing the previous one) in the device\'s `network_info`. Types kiosk, kds and pos.'),
    })
    .post(
      '/heartbeat',
      async ({ tenant, device }) => {
        const now = deps.clock.now();
        await recordHeartbeat(tenant.db, device!.id, now);
        return { status: 'success' as const, server_time: now.toISOString() };
      },
      { response: { 200: S.HeartbeatResponse }, ...doc('Liveness ping', 'Updates `last_seen_at` on every call. Types kiosk, kds and pos.') },
    );
}

/**
 * `verify.admin-switch-ip`: the client address must be in `ADMIN_SWITCH_IPS` (addresses and IPv4
 * CIDRs; empty allows nobody), checked first; then a valid device token and the device key.
 */
function deviceAdminSwitchRoutes(deps: ApiDeps) {
  const allowList = parseAllowList(deps.config.ADMIN_SWITCH_IPS);
  const doc = (summary: string, description: string) => ({ detail: { tags, summary, description, security: [DEVICE_AUTH] } });
  return new Elysia({ name: 'device-auth-admin-switch' })
    .derive({ as: 'local' }, async ({ headers, server, request }) => {
      if (!isAddressAllowed(allowList, deps.clientAddress(request, server))) throw errors.insufficientPermissions();
      const principal = await authenticate(deps, headers.authorization);
      requireType(principal, DEVICE_TOKEN_TYPES);
      checkDeviceKey(headers['x-client-api-key'], deps.config.DEVICE_API_KEY);
      const tenant = await bindTokenTenant(deps.db, principal.merchantId, principal.tenantDatabase);
      const device = await loadDevice(tenant, principal.deviceId);
      return { tenant, device };
    })
    .get('/admin-options', async ({ tenant, device }) => ({ data: await listSwitchTargets(tenant.db, device) }), {
      response: { 200: S.SwitchTargets },
      ...doc('Switch targets for an on-site admin', 'Allowed only from an address in `ADMIN_SWITCH_IPS` (403 `Unauthorized: Insufficient permissions` otherwise) with a valid device token: the merchant\'s other live devices of the same type, with their locations.'),
    })
    .post('/admin-switch', async ({ tenant, device, body }) => {
      const issued = await switchDevice(deps.db, tenant.db, tenant.merchant, device, body.device_id, deps.clock.now());
      await announceDeviceRevoked(deps.redis, tenant.merchant.tenant_database, issued.deviceId, deps.log);
      return tokenResponse(deps, issued);
    }, {
      body: S.AdminSwitchBody,
      response: { 200: S.DeviceTokenResponse },
      ...doc(
        'Switch this device to another target',
        'Same guard as admin-options. Issues a token for `device_id` (same merchant and type; 404 when unknown, 422 for itself or another type), bumping its token version; answers like activate.',
      ),
    });
}
