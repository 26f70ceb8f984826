import type { FrozenTender } from '@pos/tenders/types';
import { saleEvent, type FiscalCommon, type LineInput, type SaleEvent } from './events.ts';

/** Common event fields for tests. Test-only. */
export function testCommon(overrides: Partial<FiscalCommon> = {}): FiscalCommon {
  return {
    vatNo: 'BE0123456749',
    estNo: '2000000042',
    posId: 'POS-1',
    posFiscalTicketNo: 1,
    posDateTime: '2026-07-01T10:15:00.000Z',
    posSwVersion: '1.0.0',
    terminalId: 'TERM-1',
    deviceId: 'DEV-1',
    bookingPeriodId: '0190f3a4-5b6c-7d8e-9fa0-b1c2d3e4f506',
    bookingDate: '2026-07-01',
    ticketMedium: 'PAPER',
    employeeId: 'EMP-7',
    language: 'NL',
    isTraining: false,
    ...overrides,
  };
}

export const TEST_LINES: readonly LineInput[] = [
  { productId: 'p-1', productName: 'Espresso', departmentId: 'd-1', departmentName: 'Drinks', quantity: 2, unitPrice: 250, vatRate: 21, lineTotal: 500 },
  { productId: 'p-2', productName: 'Croissant', departmentId: 'd-2', departmentName: 'Food', quantity: 1, unitPrice: 503, vatRate: 6, lineTotal: 503 },
];

/** 10.03 paid as 5.00 debit card then cash: 5.03 due, rounded to 5.05 (rounding -0.02), 10.00 tendered. */
export const SPLIT_TENDER: FrozenTender = {
  total: 1003,
  legs: [
    { kind: 'card', funding: 'debit', amount: 500, issuer: 'Bancontact' },
    { kind: 'cash', amount: 505, tendered: 1000, change: 495, rounding: -2 },
  ],
  rounding: -2,
  amount_tendered: 1000,
  change: 495,
};

export function testSale(overrides: Partial<FiscalCommon> = {}): SaleEvent {
  return saleEvent(testCommon(overrides), TEST_LINES, SPLIT_TENDER, { drawerId: 'dr-1', drawerName: 'Main drawer' });
}
