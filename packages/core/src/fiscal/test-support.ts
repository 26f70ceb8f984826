/** Shared by the fiscal tests: a real tenant schema with one location, enrolments on demand. Test-only. */
import { bindTenant, createDatabase, migrateCentral, type DatabaseHandle, type TenantDb } from '@pos/db';
import { createLogger, type Logger } from '@pos/kernel';
import { saleEvent, type FiscalCommon, type SaleEvent } from '@pos/fiscal';
import { createMerchant, dropMerchant, type CreatedMerchant } from '../merchants/create-merchant.ts';
import type { FiscalConfig } from './fiscal-config.ts';
import type { SignEventInput } from './sign-event.ts';

export const TEST_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/ordering_test';

export const TEST_FISCAL_CONFIG: FiscalConfig = {
  masterKey: 'test-fiscal-master-key-0123456789abcdef',
  verificationBaseUrl: 'https://verify.test/fdm',
};

export interface FiscalTestTenant {
  readonly handle: DatabaseHandle;
  readonly merchant: CreatedMerchant;
  readonly tdb: TenantDb;
  readonly log: Logger;
  /** A new location in Europe/Brussels with VAT and establishment numbers. */
  addLocation(overrides?: { vat_no?: string | null; est_no?: string | null; timezone?: string }): Promise<string>;
  /** Enrols a fiscal device at the location and returns its fdm id. */
  enrol(locationId: string, mode: 'software' | 'remote', fdmId?: string): Promise<string>;
  close(): Promise<void>;
}

export async function openFiscalTestTenant(name: string): Promise<FiscalTestTenant> {
  const handle = createDatabase(TEST_DATABASE_URL, { max: 12, applicationName: `fiscal-test-${name}` });
  await migrateCentral(handle.db);
  const merchant = await createMerchant(handle.db, { slug: `fiscal-${name}-${crypto.randomUUID().slice(0, 8)}`, name: `Fiscal ${name}` });
  const tdb = bindTenant(handle.db, merchant.tenant_database);
  return {
    handle,
    merchant,
    tdb,
    log: createLogger({ test: `fiscal-${name}` }, 'error'),
    async addLocation(o = {}) {
      const id = Bun.randomUUIDv7();
      await tdb
        .insertInto('locations')
        .values({
          id,
          name: `Location ${id.slice(-4)}`,
          timezone: o.timezone ?? 'Europe/Brussels',
          address: null,
          country: 'BE',
          vat_no: o.vat_no === undefined ? 'BE0123456749' : o.vat_no,
          est_no: o.est_no === undefined ? '2000000042' : o.est_no,
          pos_tenders: JSON.stringify({}),
        })
        .execute();
      return id;
    },
    async enrol(locationId, mode, fdmId) {
      const id = fdmId ?? `FDM-${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
      await tdb.insertInto('fdm_devices').values({ id: Bun.randomUUIDv7(), location_id: locationId, fdm_id: id, regime: 'gks', status: 'active', mode }).execute();
      return id;
    },
    async close() {
      await dropMerchant(handle.db, merchant);
      await handle.close();
    },
  };
}

/** A one-line cash sale of `cents` built from the common fields. */
export function cashSale(common: FiscalCommon, cents = 500): SaleEvent {
  return saleEvent(
    common,
    [{ productId: 'p-1', productName: 'Espresso', departmentId: 'd-1', departmentName: 'Drinks', quantity: 1, unitPrice: cents, vatRate: 21, lineTotal: cents }],
    { total: cents, legs: [{ kind: 'cash', amount: cents, tendered: cents, change: 0, rounding: 0 }], rounding: 0, amount_tendered: cents, change: 0 },
    { drawerId: 'dr-1', drawerName: 'Main drawer' },
  );
}

/** Input for a sale of the given order id at `locationId`. */
export function saleInput(locationId: string, orderId: string = crypto.randomUUID(), cents = 500): SignEventInput {
  return {
    locationId,
    deviceId: 'POS-DEVICE-1',
    employeeId: 'staff-1',
    subject: { type: 'pos_order', id: orderId },
    build: (c) => cashSale(c, cents),
  };
}
