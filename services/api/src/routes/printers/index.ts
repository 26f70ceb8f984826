import { Elysia } from 'elysia';
import type { Access } from '@pos/core/auth/access';
import { grantedLocationIds, requireLocationAccess } from '@pos/core/devices/device-records';
import { reportDiscoveredPrinters, type DiscoveredPrinter } from '@pos/core/printers/discovery-report';
import { configurePrinter, confirmPairingWrite, getPairing, queueTestPrint, retirePrinter, rotatePrinterToken, startPairing, type PrinterScope } from '@pos/core/printers/printer-admin';
import { findPrinter, listPrinters, toViews } from '@pos/core/printers/printer-records';
import { queueLocationTestPrint } from '@pos/core/printers/print-dispatch';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { THROTTLES, throttle } from '../../middleware/throttle.ts';
import { posDevice, posStaff } from '../../plugins/pos-secured.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { firstPartyPos } from '../../plugins/first-party-pos.ts';
import * as S from './printers.schemas.ts';
import { discoveryEntryChecks } from './discovery-checks.ts';

const security = [{ bearer: [] }];
export const DEFAULT_POLL_URL = 'http://localhost:3100/print/printer-a/sdp';
const pollUrlOf = (deps: ApiDeps) => deps.config.PRINTER_POLL_PUBLIC_URL ?? DEFAULT_POLL_URL;

const DISCOVERY_DOC =
  'Body `{printers:[{mac, ip?, model?, device_name?, serial?, paper_width_mm?, mac_source?}]}`: 1 to 16 entries (more is refused, not truncated); `mac` in MAC format, not the all-zero or broadcast placeholder; `ip` a valid address; strings up to 64; `paper_width_mm` 58 or 80; `mac_source` one of `ipp-uuid`, `vendor-http`, `manual` or null (omitted: `ipp-uuid`). Any other key in an entry: 422 for the whole batch naming the accepted keys. Scope is the reporting device (its location); one printer record per MAC per merchant whoever saw it. Answers `{reported, known}` (counts only). Throttle `printer-discovery`: 4 a minute and 60 an hour per device, 120 a minute per client address.';

export { PLACEHOLDER_MAC_MESSAGE } from './printers.schemas.ts';

/**
 * Throttle `printer-discovery` (spec 2 section 8), as a route transform: it runs before the body is
 * validated, so a report refused for its shape counts as one (it was counted only once valid, and a
 * device sent any number of refused reports besides its 4 a minute).
 */
const discoveryThrottle = (deps: ApiDeps) => async (ctx: { device?: { id: string } | null; request: Request; server: unknown }) => {
  if (!ctx.device) return;
  await throttle(deps.redis, deps.env, [
    [THROTTLES.printerDiscoveryMinute, ctx.device.id],
    [THROTTLES.printerDiscoveryHour, ctx.device.id],
    [THROTTLES.printerDiscoveryAddress, deps.throttleAddress(ctx.request, ctx.server as never)],
  ]);
};

/**
 * The discovery report, shared by the register and the kiosk route (one contract). The placeholder mac
 * and ip checks ran in the route's transform (`discoveryEntryChecks`), with the schema's errors.
 */
async function discovery(deps: ApiDeps, ctx: { tenant: TenantContext; device: { id: string; location_id: string }; body: typeof S.DiscoveryBody.static; request: Request; server: unknown }) {
  return reportDiscoveredPrinters(ctx.tenant.db, { deviceId: ctx.device.id, locationId: ctx.device.location_id }, ctx.body.printers as DiscoveredPrinter[], deps.clock.now());
}

/** `POST /pos/printers/discovery-report`: device level (no staff session), before sign-in. */
export function posPrinterDiscoveryRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-printer-discovery' })
    .use(posDevice(deps))
    .post('/pos/printers/discovery-report', (ctx) => discovery(deps, ctx), {
      transform: [discoveryThrottle(deps), discoveryEntryChecks],
      body: S.DiscoveryBody,
      response: { 200: S.DiscoveryResponse },
      detail: { tags: ['Register: printers'], security, summary: 'Report LAN-discovered printers (device level, throttle printer-discovery)', description: DISCOVERY_DOC },
    });
}

/** Kiosk printer routes (spec 1 "Kiosk"): the discovery report and a test print. */
export function kioskPrinterRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'kiosk-printers' })
    .use(secured(deps, { types: ['kiosk'], deviceKey: true }))
    .post('/kiosk/printers/discovery-report', (ctx) => discovery(deps, { ...ctx, device: ctx.device! }), {
      transform: [discoveryThrottle(deps), discoveryEntryChecks],
      body: S.DiscoveryBody,
      response: { 200: S.DiscoveryResponse },
      detail: { tags: ['Kiosk'], security, summary: 'Report LAN-discovered printers (same contract as the register route)', description: DISCOVERY_DOC },
    })
    .post(
      '/kiosk/test-print-receipt',
      async ({ tenant, device, set }) => {
        await throttle(deps.redis, deps.env, [[THROTTLES.testPrintDevice, device!.id]]);
        const now = deps.clock.now();
        const n = await queueLocationTestPrint(tenant.db, device!.location_id, `Kiosk test print`, now);
        set.status = 202;
        return { status: 'queued' as const, printers: n };
      },
      {
        response: { 202: S.KioskTestPrintResponse },
        detail: { tags: ['Kiosk'], security, summary: 'Test print', description: 'Queues a test receipt on every configured receipt printer of the kiosk\'s location (a job for the printer queue); `printers` says how many. It prints when each printer next polls. Throttle `test-print-device`: 5 a minute per kiosk.' },
      },
    );
}

function posScope(deps: ApiDeps, tenant: TenantContext, staffId: string): PrinterScope {
  return { db: deps.db, tdb: tenant.db, merchant: tenant.merchant, now: deps.clock.now(), actor: `staff:${staffId}` };
}

/**
 * The register's printer routes (spec 2 "Printer routes"): operator routes need a staff PIN session on a
 * pos device; the mint routes (`configure`, `POST pairing-session`) also manager approval for
 * `manage_printers` (`approve_as_manager`, or an `approval_token`). Printers of the device's location only.
 */
export function posPrinterRoutes(deps: ApiDeps) {
  const tags = ['Register: printers'];
  return new Elysia({ name: 'pos-printers' })
    .use(posStaff(deps))
    .get('/pos/printers', async ({ tenant, device, query }) => ({ data: await listPrinters(tenant.db, { locationIds: [device.location_id], state: query.state }, deps.clock.now()) }), {
      query: S.PosPrinterListQuery,
      response: { 200: S.PrinterList },
      detail: { tags, security, summary: "The site's printers", description: 'Printers of the register\'s location; optional `state` `unconfigured` or `paired`. `online` is false once a printer has been silent for 2 x its poll interval + 5 s; `pending_jobs` are waiting for it.' },
    })
    .post(
      '/pos/printers/:id/configure',
      async ({ tenant, device, staff, authorizer, params, body }) => {
        const printer = await findPrinter(tenant.db, params.id, device.location_id);
        await authorizer(body.approval_token).require('manage_printers');
        const { approval_token: _a, ...input } = body;
        return { data: await configurePrinter(posScope(deps, tenant, staff.staff.id), printer, input) };
      },
      {
        params: S.IdParams,
        body: S.PosConfigureBody,
        response: { 200: S.PrinterResponse },
        detail: { tags, security, summary: 'Configure a printer (manager level: `manage_printers`)', description: 'Body `{name, role?, station_id?, paper_width_mm?, printer_profile_id?, poll_interval_seconds?, approval_token?}`. `role` `receipt` (customer receipts, reports, test prints of its location) or `kitchen` (tickets of `station_id`, a station of the printer\'s location). An unconfigured printer becomes `configured`.' },
      },
    )
    .post(
      '/pos/printers/:id/pairing-session',
      async ({ tenant, device, staff, authorizer, params, body }) => {
        const printer = await findPrinter(tenant.db, params.id, device.location_id);
        await authorizer(body?.approval_token).require('manage_printers');
        return startPairing(posScope(deps, tenant, staff.staff.id), printer, pollUrlOf(deps));
      },
      {
        params: S.IdParams,
        body: S.PosApprovalBody,
        response: { 200: S.PairingStarted },
        detail: { tags, security, summary: 'Start pairing (manager level: `manage_printers`)', description: 'Mints the printer token (shown once, here only; any older token stops working) and opens a pairing session: write `poll_url` and the token into the printer, confirm the write, and the session is `paired` at its first poll. 409 `printer_unconfigured` before configure.' },
      },
    )
    .get('/pos/printers/:id/pairing-session', async ({ tenant, device, staff, params }) => getPairing(posScope(deps, tenant, staff.staff.id), await findPrinter(tenant.db, params.id, device.location_id)), {
      params: S.IdParams,
      response: { 200: S.PairingRead },
      detail: { tags, security, summary: 'Pairing status', description: 'The latest pairing session: `awaiting_write`, `awaiting_first_poll`, `paired` or `expired` (15 minutes without a poll). 404 when none was started.' },
    })
    .post(
      '/pos/printers/:id/pairing-session/confirm-write',
      async ({ tenant, device, staff, params }) => confirmPairingWrite(posScope(deps, tenant, staff.staff.id), await findPrinter(tenant.db, params.id, device.location_id)),
      {
        params: S.IdParams,
        response: { 200: S.PairingRead },
        detail: { tags, security, summary: 'Confirm the settings were written into the printer', description: 'The session then awaits the printer\'s first poll. 409 `pairing_expired` for an expired session; 404 without one.' },
      },
    )
    .post(
      '/pos/printers/:id/test-print',
      async ({ tenant, device, staff, params, set }) => {
        const printer = await findPrinter(tenant.db, params.id, device.location_id);
        await throttle(deps.redis, deps.env, [[THROTTLES.testPrintPrinter, printer.id]]);
        set.status = 202;
        return queueTestPrint(posScope(deps, tenant, staff.staff.id), printer);
      },
      {
        params: S.IdParams,
        response: { 202: S.TestPrintResponse },
        detail: { tags, security, summary: 'Test print (no manager escalation)', description: 'Queues a test page; it prints at the printer\'s next poll (`print_job_id` is the printer-visible job id). 409 `printer_unconfigured` before configure. Throttle `test-print`: 5 a minute per printer (register and back office together).' },
      },
    );
}

async function boScope(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access> }) {
  return { scope: { db: deps.db, tdb: ctx.tenant.db, merchant: ctx.tenant.merchant, now: deps.clock.now(), actor: `user:${ctx.auth.userId}` } as PrinterScope, access: await ctx.access() };
}

/** A printer of the bound merchant the caller may act on with `slug` at its location (404, then 403). */
async function boPrinter(deps: ApiDeps, ctx: { tenant: TenantContext; auth: { userId: string }; access: () => Promise<Access>; params: { id: string } }, slug: string) {
  const { scope, access } = await boScope(deps, ctx);
  const printer = await findPrinter(ctx.tenant.db, ctx.params.id);
  requireLocationAccess(access, printer.location_id, slug);
  return { scope, printer };
}

const gate = (slug: string) => [firstPartyPos(), permission(slug)];

/**
 * Back-office printer routes (spec 2 "Back-office routes for the first-party register"), under
 * `/back-office/devices`: auth, type:backoffice, admin-vendor-override, first-party-pos, permission.
 */
export function backofficePrinterRoutes(deps: ApiDeps) {
  const tags = ['Printers'];
  const doc = (summary: string, description?: string) => ({ detail: { tags, security, summary, ...(description ? { description } : {}) } });
  return new Elysia({ name: 'backoffice-printers', prefix: '/back-office/devices' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get(
      '/unconfigured-printers',
      async (ctx) => {
        const { access } = await boScope(deps, ctx);
        const granted = grantedLocationIds(access);
        const wanted = ctx.query.location_id;
        const locationIds = wanted ? (granted === 'all' || granted.includes(wanted) ? [wanted] : []) : granted;
        return { data: await listPrinters(ctx.tenant.db, { locationIds, state: 'unconfigured' }, deps.clock.now()) };
      },
      { query: S.UnconfiguredQuery, response: { 200: S.PrinterList }, transform: gate('VIEW_DEVICES'), ...doc('Printers discovered and not yet configured', 'At the caller\'s granted locations (optional `location_id`), with `online` and `last_poll_at`.') },
    )
    .get(
      '/printers',
      async (ctx) => {
        const { access } = await boScope(deps, ctx);
        const granted = grantedLocationIds(access);
        const wanted = ctx.query.location_id;
        const locationIds = wanted ? (granted === 'all' || granted.includes(wanted) ? [wanted] : []) : granted;
        return { data: await listPrinters(ctx.tenant.db, { locationIds, state: ctx.query.state }, deps.clock.now()) };
      },
      {
        query: S.PrinterListQuery,
        response: { 200: S.PrinterList },
        transform: gate('VIEW_DEVICES'),
        ...doc('Printers with their online state', 'Every live printer at the caller\'s granted locations (optional `location_id`, `state`): `online` is false once a printer has been silent for 2 x its poll interval + 5 s; `pending_jobs` wait for it. An addition to spec 2\'s list (docs/decisions.md).'),
      },
    )
    .post(
      '/:id/printer/configure',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'EDIT_DEVICES');
        return { data: await configurePrinter(scope, printer, ctx.body) };
      },
      { params: S.IdParams, query: S.VendorQuery, body: S.ConfigureBody, response: { 200: S.PrinterResponse }, transform: gate('EDIT_DEVICES'), ...doc('Configure a printer', 'Same fields as the register route (without `approval_token`).') },
    )
    .post(
      '/:id/printer/pairing-session',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'EDIT_DEVICES');
        return startPairing(scope, printer, pollUrlOf(deps));
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.PairingStarted }, transform: gate('EDIT_DEVICES'), ...doc('Start pairing', 'Mints the printer token (shown once; any older token stops working).') },
    )
    .get(
      '/:id/printer/pairing-session',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'VIEW_DEVICES');
        return getPairing(scope, printer);
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.PairingRead }, transform: gate('VIEW_DEVICES'), ...doc('Pairing status') },
    )
    .post(
      '/:id/printer/pairing-session/confirm-write',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'EDIT_DEVICES');
        return confirmPairingWrite(scope, printer);
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.PairingRead }, transform: gate('EDIT_DEVICES'), ...doc('Confirm the write into the printer') },
    )
    .post(
      '/:id/printer/test-print',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'EDIT_DEVICES');
        await throttle(deps.redis, deps.env, [[THROTTLES.testPrintPrinter, printer.id]]);
        ctx.set.status = 202;
        return queueTestPrint(scope, printer);
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 202: S.TestPrintResponse }, transform: gate('EDIT_DEVICES'), ...doc('Test print', 'Queues a test page. Throttle `test-print`: 5 a minute per printer (back office and register together).') },
    )
    .post(
      '/:id/printer/rotate-token',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'EDIT_DEVICES');
        return rotatePrinterToken(scope, printer);
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.RotateResponse }, transform: gate('EDIT_DEVICES'), ...doc('Rotate the printer token', 'A new token, shown once; the old one fails from now on. 409 `printer_not_paired` when none was minted.') },
    )
    .post(
      '/:id/printer/retire',
      async (ctx) => {
        const { scope, printer } = await boPrinter(deps, ctx, 'DELETE_DEVICES');
        return retirePrinter(scope, printer);
      },
      { params: S.IdParams, query: S.VendorQuery, response: { 200: S.RetireResponse }, transform: gate('DELETE_DEVICES'), ...doc('Retire a printer', 'Its token stops working and waiting jobs are cancelled. A retired printer discovered again is unconfigured again.') },
    );
}

export { toViews };
