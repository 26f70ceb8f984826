import { Elysia, type AnyElysia } from 'elysia';
import type { ApiDeps } from '../../context.ts';
import { kioskPaymentRoutes } from '../kiosk-payments/index.ts';
import { realtimeRoutes } from '../realtime/index.ts';
import { transactionRoutes } from '../transactions/index.ts';

/**
 * The payment routes (spec 3), mounted under `/api` beside the core group: the core group's route type
 * is at the compiler's depth limit (TS2589), so payments form their own group.
 */
export function paymentApi(deps: ApiDeps): AnyElysia {
  return new Elysia({ prefix: '/api', name: 'payments-api' }).use(kioskPaymentRoutes(deps)).use(realtimeRoutes(deps)).use(transactionRoutes(deps));
}
