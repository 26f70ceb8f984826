import { sql } from 'kysely';
import type { TenantTx } from '@pos/db';

/**
 * A deleted location leaves the location lists of the catalog (`items.location_ids`,
 * `offers.location_ids`; null stays null, every location). Those lists carry no foreign key, so the
 * id stayed behind: the back office's form sent back was a 422 on `location_ids.N` ("The selected
 * location id is invalid."), and a member granted the other listed locations could no longer edit
 * the record (403: a location outside the grant). An emptied list sells or discounts nowhere, as the
 * list holding only the deleted location did.
 */
export async function forgetLocationInCatalog(tx: TenantTx, locationId: string): Promise<void> {
  for (const table of ['items', 'offers'] as const) {
    await tx
      .updateTable(table)
      .set({ location_ids: sql`array_remove(location_ids, ${locationId}::uuid)` })
      .where(sql<boolean>`${locationId}::uuid = any(location_ids)`)
      .execute();
  }
}
