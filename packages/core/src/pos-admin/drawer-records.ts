import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { iso, isoOrNull, notFound } from './pos-admin-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Drawers (`drawers`): the cash receptacles a `register_drawer` till opens on. A drawer's fiscal
 * identity `{drawerId, drawerName}` is frozen when it is created and signed verbatim in fiscal
 * events; a rename changes `name` only, never `fiscal_identity`. Drawers are retired, never deleted.
 */

export type DrawerRow = Selectable<TenantTables['drawers']>;
export type DrawerKind = 'physical' | 'virtual';

export interface DrawerView {
  id: string;
  location_id: string;
  name: string;
  kind: DrawerKind;
  /** Frozen at creation; rendered verbatim. */
  fiscal_identity: { drawerId: string; drawerName: string } | null;
  retired_at: string | null;
  created_at: string;
}

export const DRAWER_HAS_TILL = 'This drawer has a till that is not closed yet: close it before retiring the drawer.';

export function presentDrawer(r: DrawerRow): DrawerView {
  return {
    id: r.id,
    location_id: r.location_id,
    name: r.name,
    kind: r.kind,
    fiscal_identity: r.fiscal_identity,
    retired_at: isoOrNull(r.retired_at),
    created_at: iso(r.created_at),
  };
}

/** A drawer of the location (retired or not), or 404: another location's or merchant's id is not found. */
export async function findDrawer(tdb: TenantDb | TenantTx, locationId: string, id: string, opts: { lock?: boolean } = {}): Promise<DrawerRow> {
  if (!isUuid(id)) throw notFound('drawer');
  let q = tdb.selectFrom('drawers').selectAll().where('id', '=', id).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('drawer');
  return row;
}
