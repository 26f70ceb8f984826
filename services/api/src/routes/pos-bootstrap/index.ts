import { Elysia } from 'elysia';
import { getBootstrapJson } from '@pos/core/pos/bootstrap/get-bootstrap';
import type { ApiDeps } from '../../context.ts';
import { posDevice } from '../../plugins/pos-secured.ts';
import * as S from './pos-bootstrap.schemas.ts';

/** `GET /pos/bootstrap` (device level, no staff session): device, location and menu. */
export function posBootstrapRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'pos-bootstrap' })
    .use(posDevice(deps))
    .get(
      '/pos/bootstrap',
      // The menu part is served as text the published-catalog reader serialised once per version.
      async ({ tenant, device }) =>
        new Response(await getBootstrapJson(tenant.db, device, { redis: deps.redis, merchantId: tenant.merchant.id }), { headers: { 'content-type': 'application/json' } }),
      {
        response: { 200: S.Bootstrap },
        detail: {
          tags: ['Register: bootstrap'],
          security: [{ bearer: [] }],
          summary: 'The register, its location (normalised pos_tenders, fiscal device) and the published menu',
        },
      },
    );
}
