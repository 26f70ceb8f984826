import { t } from 'elysia';
import { Int } from '../shared.schemas.ts';

export const PosTenders = t.Object({
  enabled: t.Array(t.String(), { description: 'among card, meal_voucher, gift_voucher; cash is always enabled' }),
  issuers: t.Object({
    card_debit: t.Array(t.String()),
    card_credit: t.Array(t.String()),
    meal_voucher: t.Array(t.String()),
    gift_voucher: t.Array(t.String()),
  }),
});

export const FiscalDevice = t.Object({
  fdm_id: t.String(),
  regime: t.String(),
  status: t.String({ description: '`active` or `retired`' }),
  signing: t.Boolean({ description: 'an active Belgian-regime (gks) enrolment: sales can be settled' }),
});

export const BootstrapItem = t.Object({
  id: t.String(),
  name: t.String(),
  unit_price: Int({ description: 'cents, VAT included' }),
  vat_rate: t.Number({ description: 'whole percent' }),
  modifiers: t.Array(t.Unknown()),
});

export const Bootstrap = t.Object({
  device: t.Object({ id: t.String(), name: t.String(), type: t.String(), location_id: t.String() }),
  location: t.Object({
    id: t.String(),
    name: t.String(),
    timezone: t.String(),
    pos_tenders: PosTenders,
    fiscal_device: t.Union([FiscalDevice, t.Null()]),
  }),
  display_groups: t.Array(t.Object({ id: t.String(), name: t.String(), position: Int(), items: t.Array(BootstrapItem) })),
});
