import type { TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { scopedTransactions, transactionDateScope, type TransactionFilters } from './transaction-scope.ts';
import { transactionView, type TransactionRow, type TransactionView } from './transaction-records.ts';

/** `GET /transactions/datatable` (spec 1 "Transactions and reports"): filters, search, sort, paging. */
export async function listTransactions(tdb: TenantDb, access: Access, q: TransactionFilters & DatatableQuery & { sort?: string }): Promise<Datatable<TransactionView>> {
  return runDatatable<TransactionRow, TransactionView>(scopedTransactions(tdb, access, q, await transactionDateScope(tdb, q)), { ...q, search: undefined } as DatatableQuery & { sort?: string }, {
    searchColumns: [],
    sortable: ['created_at', 'total', 'order_no', 'status'],
    defaultSort: { column: 'created_at', direction: 'desc' },
    select: (qb) => qb.selectAll(),
    map: (r) => transactionView(r),
  });
}
