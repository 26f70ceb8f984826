import { Elysia, type AnyElysia } from 'elysia';
import { listLocationStations } from '@pos/core/kitchen/stations';
import type { ApiDeps } from '../../context.ts';
import { posStaff } from '../../plugins/pos-secured.ts';
import { StationList } from '../kitchen-stations/stations.schemas.ts';

/**
 * Spec 2 `GET /pos/kds-stations`: the register's station picker, a staff route (`auth`, `device-key`,
 * `type:pos`, `tenant:pos`, `X-Pos-Staff-Token`); the location comes from the device token.
 * Typed as `AnyElysia` for the app (TS2589).
 */
export function posKdsStationRoutes(deps: ApiDeps): AnyElysia {
  return new Elysia({ name: 'pos-kds-stations' })
    .use(posStaff(deps))
    .get('/pos/kds-stations', async ({ tenant, device }) => ({ data: await listLocationStations(tenant.db, device.location_id) }), {
      response: { 200: StationList },
      detail: {
        tags: ['Register: kitchen'],
        security: [{ bearer: [] }],
        summary: 'Kitchen stations of the register\'s location (station picker)',
        description: '`{data: [station]}`, the stations of the location of the device token by name, each `{id, location_id, name, category_ids, is_fallback, device_ids, created_at, updated_at}` as the back office answers them.',
      },
    });
}
