import { t } from 'elysia';
import { Iso, Text } from '../pos-admin/pos-admin.schemas.ts';
import { PathId } from '../shared.schemas.ts';

/** Schemas of a location's cash drawers (`/back-office/pos/{locationId}/drawers`). */
export const DrawerParams = t.Object({ locationId: PathId(), drawerId: PathId() });

const DrawerKind = t.Union([t.Literal('physical'), t.Literal('virtual')], { error: 'The kind must be physical or virtual.' });
export const Drawer = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  kind: t.String(),
  /** Frozen at creation, rendered verbatim; a rename never changes it. */
  fiscal_identity: t.Nullable(t.Object({ drawerId: t.String(), drawerName: t.String() })),
  retired_at: t.Nullable(Iso),
  created_at: Iso,
});
export const DrawerResponse = t.Object({ data: Drawer });
export const DrawerList = t.Object({ data: t.Array(Drawer) });
export const CreateDrawerBody = t.Object({ name: Text('name', 120), kind: DrawerKind }, { additionalProperties: false });
export const RenameDrawerBody = t.Object({ name: Text('name', 120) }, { additionalProperties: false });
