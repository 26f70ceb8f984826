import { Elysia } from 'elysia';
import { quoteBasket } from '@pos/core/catalog/quote-basket';
import { requireKioskDiningOption } from '@pos/core/payments/create-kiosk-intent';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import * as S from './kiosk-pricing.schemas.ts';

/**
 * `POST /kiosk/pricing/quote` (spec 1 "Kiosk": device-key, type:kiosk, tenant:kiosk): prices a basket
 * server-side from the kiosk location's published catalog and active offers, with the one pricing
 * function. The rest of the kiosk API belongs to the payments issue.
 */
export function kioskPricingRoutes(deps: ApiDeps) {
  return new Elysia({ name: 'kiosk-pricing' })
    .use(secured(deps, { types: ['kiosk'], deviceKey: true }))
    .post(
      '/kiosk/pricing/quote',
      async ({ tenant, device, body }) => {
        if (body.dining_option !== undefined) await requireKioskDiningOption(tenant.db, device!.location_id, body.dining_option);
        return { data: await quoteBasket({ tdb: tenant.db, redis: deps.redis, merchantId: tenant.merchant.id, now: deps.clock.now() }, { locationId: device!.location_id, channel: 'kiosk' }, body.lines) };
      },
      {
        body: S.QuoteBody,
        response: { 200: S.Quote },
        detail: {
          tags: ['Kiosk'],
          security: [{ bearer: [] }],
          summary: 'Price a basket before payment',
          description:
            'Prices come from the published menu of the kiosk\'s location (never from the client); offers that apply (channel kiosk, schedule in the location\'s zone, basket minimum) are deducted. An item not on the kiosk menu is a 422 on `lines.N.item_id`; a modifier outside the item\'s groups on `lines.N.modifier_ids.M`; a selection outside a group\'s min/max on `lines.N.modifier_ids`. `dining_option` (`For Here`, `Takeaway`), as create-intent takes it: one the location does not offer in house is a 422 on it.',
        },
      },
    );
}
