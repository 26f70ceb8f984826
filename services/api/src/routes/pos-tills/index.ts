import { Elysia, t } from 'elysia';
import { openTill } from '@pos/core/pos/tills/open-till';
import { getCurrentTill } from '@pos/core/pos/tills/get-current-till';
import { recordTillMovement } from '@pos/core/pos/tills/record-till-movement';
import { endTill } from '@pos/core/pos/tills/end-till';
import { countTill } from '@pos/core/pos/tills/count-till';
import { closeTill } from '@pos/core/pos/tills/close-till';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import * as S from './pos-tills.schemas.ts';

const tags = ['Register: tills'];
const security = [{ bearer: [] }];

const tokenOf = (body: unknown): string | undefined => {
  const v = (body as { approval_token?: unknown } | null | undefined)?.approval_token;
  return typeof v === 'string' ? v : undefined;
};

/** Tills (spec 2 "Till rules", "Till and related", section 3): staff routes of `/pos/tills`. */
export function posTillRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-tills' })
    .use(posStaff(deps))
    .post('/pos/tills', ({ body, tenant, staff, authorizer, actor }) => openTill(tenant.db, actor, authorizer(tokenOf(body)), body, deps.clock.now()), {
      body: S.OpenTillBody,
      response: { 200: S.Till },
      detail: {
        tags,
        security,
        summary: 'Open a till (`open_till`): the bare till with its frozen drawer identity',
        description:
          'Accepts exactly `mode`, `opening_float`, `drawer_id`, `approval_token`; any other key (e.g. `drawer_descriptor`) is 422 naming them. `register_drawer` holds a drawer: `drawer_id`, or the only free drawer; several free (or none) is 409 `till_conflict` with `candidates: [{id, name, kind}]` (the free drawers) and the client retries naming `drawer_id`. A drawer or a staff wallet held by an open or ended-not-closed till is 409 `till_conflict` with the same candidates; a register holds one unclosed register_drawer till. `staff_wallet` is the member\'s own wallet (virtual drawer), without `drawer_id`. A location without drawers: 422 `no_drawer`. After the day\'s Z close: 409 `business_day_closed`.',
      },
    })
    .get(
      '/pos/tills/current',
      async ({ tenant, status, actor }) => {
        const till = await getCurrentTill(tenant.db, actor);
        return till ?? status(204, undefined);
      },
      {
        response: { 200: S.Till, 204: t.Void({ description: 'no open or ended till: no body' }) },
        detail: {
          tags,
          security,
          summary: 'The current till: bare resource, or 204 with no body',
          description: "The member's own staff_wallet till, else this register's register_drawer till, while open or ended (not closed). Never an envelope.",
        },
      },
    )
    .post(
      '/pos/tills/:tillId/movements',
      ({ params, body, tenant, authorizer, actor }) =>
        recordTillMovement(tenant.db, deps.fiscal, actor, authorizer(tokenOf(body)), params.tillId, body, deps.clock.now()),
      {
        params: S.TillParams,
        body: S.MovementBody,
        response: { 200: S.Movement },
        detail: {
          tags,
          security,
          summary: 'Record a cash movement on an open till; signed as a fiscal event',
          description:
            '`amount` is a positive integer of cents, signed by the server (`paid_in`, `float_issue` +; `paid_out`, `float_return` -); `drawer_open_no_sale` carries 0 or no amount. Permissions: `paid_out` and `float_return` (cash out) need `till_paid_out`, `drawer_open_no_sale` needs `no_sale`, the others `open_till`. Only an open till (409 `till_not_open`). Signed with the drawer identity as money in/out (or drawer open for a no-sale) in the same transaction. A remote fiscal module that does not answer does not fail it: 200 with `fiscal` without `digital_signature` (signed later by recovery); a refusal is 422 `fiscal_refused`, nothing recorded.',
        },
      },
    )
    .post('/pos/tills/:tillId/end', ({ params, body, tenant, authorizer, actor }) => endTill(tenant.db, actor, authorizer(tokenOf(body)), params.tillId, deps.clock.now()), {
      params: S.TillParams,
      body: S.ApprovalBody,
      response: { 200: S.Till },
      detail: { tags, security, summary: 'End an open till (`count_till`): it stops taking cash and waits for its blind count' },
    })
    .post(
      '/pos/tills/:tillId/count',
      ({ params, body, tenant, authorizer, actor }) => countTill(tenant.db, deps.log, actor, authorizer(tokenOf(body)), params.tillId, body, deps.clock.now()),
      {
        params: S.TillParams,
        body: S.CountBody,
        response: { 200: S.TillCount },
        detail: {
          tags,
          security,
          summary: 'Blind count of an ended till (`count_till`)',
          description:
            'Body `{counted}` (integer cents >= 0); the deprecated `counted_close` is read only when `counted` is absent and logs a deprecation warning. Answers `{till, expected, counted, variance, variance_level, requires_approval, approval_permission}`: the expected cash is shown only here, after the count. Variance levels: none (0), minor (up to 2.00), major (up to 10.00), critical; major and critical need `close_till` to close. A recount replaces the count.',
        },
      },
    )
    .post('/pos/tills/:tillId/close', ({ params, body, tenant, authorizer, actor }) => closeTill(tenant.db, actor, authorizer(tokenOf(body)), params.tillId, deps.clock.now()), {
      params: S.TillParams,
      body: S.ApprovalBody,
      response: { 200: S.TillCount },
      detail: {
        tags,
        security,
        summary: 'Close an ended and counted till (`count_till`; `close_till` when the count requires approval)',
        description: 'Answers the closed till nested under `till` beside the flat variance block of its count. Not ended: 409 `till_not_ended`; not counted: 409 `till_not_counted`; closed: 409 `till_closed`.',
      },
    });
}
