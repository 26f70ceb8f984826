import { PAYMENT_PROVIDERS } from './provider-choice.ts';

/**
 * The values a transaction's `channel` and `payment_provider` can hold, as the tenant table's check
 * constraints allow them (tenant migration 802): the filters of the transaction lists accept exactly
 * these. Marketplace orders are stored with channel `delivery` and their marketplace as provider.
 */
export const MARKETPLACE_PROVIDERS = ['delivery-a', 'delivery-b'] as const;
export type MarketplaceProvider = (typeof MARKETPLACE_PROVIDERS)[number];

export const TRANSACTION_PROVIDERS = [...PAYMENT_PROVIDERS, ...MARKETPLACE_PROVIDERS] as const;
export type TransactionProvider = (typeof TRANSACTION_PROVIDERS)[number];

export const TRANSACTION_CHANNELS = ['kiosk', 'online_ordering', 'table_qr', 'delivery'] as const;
export type TransactionChannel = (typeof TRANSACTION_CHANNELS)[number];
