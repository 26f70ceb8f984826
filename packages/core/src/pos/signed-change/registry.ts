import { saleChange } from '../orders/settle-order.ts';
import { refundChange } from '../refunds/refund-sale.ts';
import { tillMovementChange } from '../tills/record-till-movement.ts';
import { xReportChange } from '../business-day/get-x-report.ts';
import { zReportChange } from '../business-day/close-business-day.ts';
import { workEventChange } from '../staff/sign-work-event.ts';
import { orderEventChange } from '../orders/sign-fire.ts';
import type { SignedChangeKind } from './signed-change.ts';

/**
 * Every kind of register change the fiscal module counts, each with its `finish` and `undo`
 * (signed-change.ts). The use cases run them through `runSignedChange`; the recovery job's hooks are
 * derived from this list (pos/fiscal-recovery), so a kind is described once. One subject type each.
 */
export const SIGNED_CHANGE_KINDS: readonly SignedChangeKind<unknown>[] = [saleChange, refundChange, tillMovementChange, xReportChange, zReportChange, workEventChange, orderEventChange];
