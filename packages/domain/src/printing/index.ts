export * from './receipt-model.ts';
export * from './epos-xml.ts';
export * from './render.ts';
export * from './printer-rules.ts';
export * from './order-receipt.ts';
export * from './text-width.ts';
