import type { FiscalEvent } from './events.ts';

/** FDM event labels: N normal, S social, R report, F financial, T training (P, I, C unused here). */
export type EventLabel = 'N' | 'S' | 'R' | 'F' | 'T';

/** The module's operation name, echoed back as `eventOperation`. */
export type EventOperation =
  | 'SALE'
  | 'ORDER'
  | 'WORK_IN'
  | 'WORK_OUT'
  | 'MONEY_IN_OUT'
  | 'DRAWER_OPEN'
  | 'REPORT_TURNOVER_X'
  | 'REPORT_USER_X'
  | 'REPORT_TURNOVER_Z';

/** The module's reference for one signed event. */
export interface FdmRef {
  readonly fdmId: string;
  /** ISO 8601 instant at which the module signed. */
  readonly fdmDateTime: string;
  readonly eventLabel: EventLabel;
  /** Counter of this label on this module. */
  readonly eventCounter: number;
  /** Counter of all events on this module. */
  readonly totalCounter: number;
}

export interface SignResult {
  readonly fdmRef: FdmRef;
  readonly digitalSignature: string;
  /** Sales and refunds only: printed on the receipt. */
  readonly shortSignature?: string;
  /** Sales and refunds only: shown as a QR code. */
  readonly verificationUrl?: string;
  readonly eventOperation: EventOperation;
}

/** Signs fiscal events: in process (SoftwareSigner) or through a remote module (RemoteFdmSigner). */
export interface FiscalSigner {
  sign(event: FiscalEvent): Promise<SignResult>;
}

/** The label an event signs under; training events always sign as T. */
export function eventLabelOf(event: FiscalEvent): EventLabel {
  if (event.isTraining) return 'T';
  switch (event.kind) {
    case 'sale':
    case 'refund':
    case 'order':
      return 'N';
    case 'work_in':
    case 'work_out':
      return 'S';
    case 'money_in_out':
    case 'drawer_open':
      return 'F';
    case 'report_x_turnover':
    case 'report_x_user':
    case 'report_z':
      return 'R';
  }
}

/** The module operation for an event; a refund is a sale with negative quantities. */
export function eventOperationOf(event: FiscalEvent): EventOperation {
  switch (event.kind) {
    case 'sale':
    case 'refund':
      return 'SALE';
    case 'order':
      return 'ORDER';
    case 'work_in':
      return 'WORK_IN';
    case 'work_out':
      return 'WORK_OUT';
    case 'money_in_out':
      return 'MONEY_IN_OUT';
    case 'drawer_open':
      return 'DRAWER_OPEN';
    case 'report_x_turnover':
      return 'REPORT_TURNOVER_X';
    case 'report_x_user':
      return 'REPORT_USER_X';
    case 'report_z':
      return 'REPORT_TURNOVER_Z';
  }
}

/** True when the module returns a short signature and verification URL for this event (PROTOCOLS: "for sales"; an order is no ticket). */
export function isTicketEvent(event: FiscalEvent): boolean {
  return event.kind === 'sale' || event.kind === 'refund';
}
