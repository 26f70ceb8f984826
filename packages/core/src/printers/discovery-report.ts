import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { normaliseMac } from '@pos/domain/printing/printer-rules';

export interface DiscoveredPrinter {
  mac: string;
  ip?: string;
  model?: string;
  device_name?: string;
  serial?: string;
  paper_width_mm?: 58 | 80;
  mac_source?: 'ipp-uuid' | 'vendor-http' | 'manual' | null;
}

/**
 * A device's LAN discovery report (spec 2 "Printer routes"): one printer record per MAC per merchant,
 * whichever device saw it (a new one lands at the reporting device's location). Known printers get
 * the fresh network facts (never a new location); a retired printer seen again is unconfigured again,
 * at the reporting device's location (seen at another one, its kitchen station is dropped). `known`
 * counts the entries that were on record before this report.
 */
export async function reportDiscoveredPrinters(tdb: TenantDb, reporter: { deviceId: string; locationId: string }, printers: readonly DiscoveredPrinter[], now: Date): Promise<{ reported: number; known: number }> {
  // The same MAC twice in one batch is one printer (the last entry wins).
  const byMac = new Map<string, DiscoveredPrinter>();
  for (const p of printers) byMac.set(normaliseMac(p.mac), p);
  let known = 0;
  await tdb.transaction().execute(async (tx) => {
    for (const [mac, p] of [...byMac].sort(([a], [b]) => a.localeCompare(b))) {
      const row = await tx
        .insertInto('printers')
        .values({
          id: randomUUID(),
          location_id: reporter.locationId,
          mac,
          ip: p.ip ?? null,
          model: p.model ?? null,
          device_name: p.device_name ?? null,
          serial: p.serial ?? null,
          paper_width_mm: p.paper_width_mm ?? null,
          mac_source: p.mac_source ?? 'ipp-uuid',
          first_reported_by: reporter.deviceId,
          last_reported_at: now,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) =>
          oc.column('mac').doUpdateSet({
            ip: sql`coalesce(excluded.ip, printers.ip)`,
            model: sql`coalesce(excluded.model, printers.model)`,
            device_name: sql`coalesce(excluded.device_name, printers.device_name)`,
            serial: sql`coalesce(excluded.serial, printers.serial)`,
            paper_width_mm: sql`coalesce(printers.paper_width_mm, excluded.paper_width_mm)`,
            last_reported_at: now,
            state: sql`case when printers.state = 'retired' then 'unconfigured' else printers.state end`,
            retired_at: sql`case when printers.state = 'retired' then null else printers.retired_at end`,
            // A retired printer comes back where it was seen; a station of its old location is not its own there.
            location_id: sql`case when printers.state = 'retired' then excluded.location_id else printers.location_id end`,
            role: sql`case when printers.state = 'retired' and printers.location_id <> excluded.location_id then 'receipt' else printers.role end`,
            station_id: sql`case when printers.state = 'retired' and printers.location_id <> excluded.location_id then null else printers.station_id end`,
          }),
        )
        .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
        .executeTakeFirstOrThrow();
      if (!row.inserted) known++;
    }
  });
  return { reported: printers.length, known };
}
