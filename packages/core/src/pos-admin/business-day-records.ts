import type { Selectable } from 'kysely';
import type { TenantTables } from '@pos/db';
import { isoOrNull, iso } from './pos-admin-scope.ts';

/**
 * Business days (`pos_business_days`) are written by the register (`POST /pos/business-day/close`
 * stores the Z report JSON and its number); the back office only reads them.
 */
export type BusinessDayRow = Selectable<TenantTables['pos_business_days']>;

export interface BusinessDaySummary {
  id: string;
  business_date: string;
  status: 'open' | 'closed';
  z_report_no: number | null;
  opened_at: string;
  closed_at: string | null;
}

export function presentBusinessDay(r: BusinessDayRow): BusinessDaySummary {
  return {
    id: r.id,
    business_date: String(r.business_date),
    status: r.status,
    z_report_no: r.z_report_no === null ? null : Number(r.z_report_no),
    opened_at: iso(r.opened_at),
    closed_at: isoOrNull(r.closed_at),
  };
}
