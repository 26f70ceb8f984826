import { Elysia, type AnyElysia } from 'elysia';
import { locationLayouts } from '@pos/core/pos-admin/pos-layout-records';
import type { ApiDeps } from '../../context.ts';
import { posDevice } from '../../plugins/pos-secured.ts';
import { LayoutList } from '../pos-admin-layouts/pos-admin-layouts.schemas.ts';

/**
 * `GET /pos/layouts`: the screen layouts the back office designed for the register's location
 * (`/back-office/pos/{locationId}/layouts`), the default first. Device level like the bootstrap (`auth`,
 * `device-key`, `type:pos`, `tenant:pos`, no staff session): the register draws its sale screen from it
 * when it starts. The location comes from the device token. Typed as `AnyElysia` for the app (TS2589).
 */
export function posLayoutRoutes(deps: ApiDeps): AnyElysia {
  return new Elysia({ name: 'pos-layouts' })
    .use(posDevice(deps))
    .get('/pos/layouts', async ({ tenant, device }) => ({ data: await locationLayouts(tenant.db, device.location_id) }), {
      response: { 200: LayoutList },
      detail: {
        tags: ['Register: bootstrap'],
        security: [{ bearer: [] }],
        summary: 'The screen layouts of the register\'s location, the default first',
        description:
          '`{data: [layout]}`: each `{id, location_id, name, is_default, columns, rows, pages: [{name, tiles: [{row, column, width, height, item_id, category_id, label, color}]}], created_at, updated_at}` as the back office answers it; the default layout first, then by name; `[]` when the location has none (the register shows its menu\'s display groups). A tile shows one item or one category of the published menu.',
      },
    });
}
