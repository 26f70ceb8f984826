import { bindTenant, migrateCentral, type CentralDb } from '@pos/db';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { reportDiscoveredPrinters } from '@pos/core/printers/discovery-report';
import { configurePrinter, startPairing } from '@pos/core/printers/printer-admin';
import { findPrinter } from '@pos/core/printers/printer-records';

/** Test support: a seeded merchant with one configured printer and its token (through the real use cases). */
export async function seedPairedPrinter(db: CentralDb, prefix: string, mac = '00:11:62:AA:BB:01') {
  await migrateCentral(db);
  const m: DemoSeedResult = await seedDemo(db, { slug: `${prefix}-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'test-device-api-key-0123', pinPepper: 'test-pin-pepper-0123456789' });
  const tdb = bindTenant(db, m.merchant.tenant_database);
  const pos = m.devices.find((d) => d.type === 'pos')!;
  const now = new Date();
  await reportDiscoveredPrinters(tdb, { deviceId: pos.id, locationId: pos.location_id }, [{ mac, model: 'TM-m30III', paper_width_mm: 80 }], now);
  const row = await tdb.selectFrom('printers').selectAll().where('mac', '=', mac).executeTakeFirstOrThrow();
  const scope = { db, tdb, merchant: m.merchant, now, actor: 'test' };
  await configurePrinter(scope, row, { name: 'Counter' });
  const paired = await startPairing(scope, await findPrinter(tdb, row.id), 'http://localhost/print/printer-a/sdp');
  return { m, tdb, printerId: row.id, token: paired.printer_token, drop: () => dropMerchant(db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database }) };
}
