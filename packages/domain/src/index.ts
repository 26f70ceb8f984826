/** Pure rules: money, permissions, orders, tills, business days and reports. */
export * from './money.ts';
export * from './permissions.ts';
export * from './exhaustive.ts';
export * from './field-error.ts';
export * from './orders/line-totals.ts';
export * from './orders/order-totals.ts';
export * from './orders/order-state.ts';
export * from './orders/order-rules.ts';
export * from './tills/till-rules.ts';
export * from './business-day/business-day.ts';
export * from './reports/sales-by-tender.ts';
export * from './reports/x-report.ts';
export * from './catalog/menu-state.ts';
export * from './catalog/offer-state.ts';
export * from './catalog/pricing.ts';
export * from './catalog/tax-defaults.ts';
