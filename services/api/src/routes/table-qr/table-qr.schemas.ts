import { t } from 'elysia';
import { MAX_TABLES } from '@pos/core/table-qr/table-sections';
import { MAX_DOWNLOAD_TABLES, QR_SIZES } from '@pos/core/table-qr/qr-files';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

/** Schemas of table QR ordering (spec 1 "Online ordering and table QR ordering"). */
const Iso = t.String({ format: 'date-time' });
const Uuid = (field: string) => t.String({ format: 'uuid', maxLength: 36, error: `The ${field} field must be a valid UUID.` });
const Name = t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' });
const Tables = Int({ minimum: 1, maximum: MAX_TABLES, error: `The tables field must be a whole number from 1 to ${MAX_TABLES}.` });

const vendorId = vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)');
export const VendorQuery = t.Object(vendorId);

export const IdParams = t.Object({ id: PathId() });
export const LocationParams = t.Object({ locationId: PathId() });
export const ScanParams = t.Object({
  locationId: PathId(),
  tableSectionId: PathId(),
  // Not a pattern: a table that does not exist (whatever its spelling) is a 404, as printed codes can be mistyped.
  tableNumber: PathId({ description: 'table number, 1..tables of the section' }),
});
export const TableParams = t.Object({ id: PathId(), tableNumber: PathId({ description: 'table number, 1..tables of the section' }) });
export const SessionParams = t.Object({ locationId: PathId(), sessionId: PathId() });

export const TableSection = t.Object({
  id: t.String(),
  location_id: t.String(),
  name: t.String(),
  tables: Int(),
  open_sessions: Int(),
  created_at: Iso,
  updated_at: Iso,
});
export const TableSectionResponse = t.Object({ data: TableSection });
export const TableSectionList = t.Object({ data: t.Array(TableSection) });
export const CreateTableSectionBody = t.Object({ location_id: Uuid('location id'), name: Name, tables: Tables }, { additionalProperties: false });
export const UpdateTableSectionBody = t.Object({ name: t.Optional(Name), tables: t.Optional(Tables) }, { additionalProperties: false });
export const Success = t.Object({ status: t.Literal('success') });

const SessionOrder = t.Object({
  order_no: Int(),
  receipt_no: t.Nullable(Int()),
  status: t.String(),
  order_status: t.Nullable(t.String()),
  total: Int(),
  completed_at: t.Nullable(Iso),
});
export const TableSession = t.Object({
  id: t.String(),
  location_id: t.String(),
  table_section_id: t.String(),
  table_section_name: t.String(),
  table_number: Int(),
  status: t.String(),
  opened_at: Iso,
  closed_at: t.Nullable(Iso),
  orders: t.Array(SessionOrder),
  total: Int(),
});
export const ScanResponse = t.Object({ data: TableSession, opened: t.Boolean() });
export const SessionResponse = t.Object({ data: TableSession });
export const BindOrderBody = t.Object({ transaction_id: Uuid('transaction id') }, { additionalProperties: false });

export const DownloadOptions = t.Object({
  data: t.Object({
    formats: t.Array(t.String()),
    sizes: t.Array(Int()),
    default_size: Int(),
    max_tables: Int(),
    sections: t.Array(t.Object({ id: t.String(), name: t.String(), tables: Int(), first_url: t.String() })),
  }),
});
export const DownloadBody = t.Object(
  {
    table_section_id: Uuid('table section id'),
    tables: t.Optional(
      t.Array(Int({ minimum: 1, maximum: MAX_TABLES, error: 'Each table must be a whole number from 1 to ' + MAX_TABLES + '.' }), {
        minItems: 1,
        maxItems: MAX_DOWNLOAD_TABLES,
        error: `The tables field must list 1 to ${MAX_DOWNLOAD_TABLES} table numbers.`,
      }),
    ),
    format: t.Union([t.Literal('png'), t.Literal('pdf')], { error: 'The format field must be png or pdf.' }),
    size: t.Optional(t.Union(QR_SIZES.map((s) => t.Literal(s)), { error: `The size field must be one of ${QR_SIZES.join(', ')}.` })),
  },
  { additionalProperties: false },
);
export const QrFile = t.Unknown({ description: 'image/png (one table) or application/pdf (a page per table), as an attachment' });
