import { t } from 'elysia';
import { Int, vendorIdField } from '../shared.schemas.ts';
import { DatatableQuery, IdParams, Name, NO_NUL, Strict, Success, Text, Uuid } from '../catalog/catalog.schemas.ts';

export { IdParams, Success };

export const Content = t.Object({
  id: t.String(),
  name: t.String(),
  alt_text: t.Nullable(t.String()),
  content_type: t.String({ description: 'from the file\'s first bytes: image/jpeg, image/png, image/gif or image/webp' }),
  size_bytes: Int(),
  url: t.String({ description: 'where the bytes are served' }),
  created_at: t.String(),
  updated_at: t.String(),
});
export const ContentResponse = t.Object({ data: Content });
export const ContentList = t.Object({ data: t.Array(Content) });
export const ContentDatatable = t.Object({ data: t.Array(Content), total: Int(), page: Int(), per_page: Int() });
export const ContentDatatableQuery = t.Object({ ...DatatableQuery, content_type: t.Optional(t.String({ maxLength: 40, pattern: NO_NUL })) });
export const ContentShowQuery = t.Object({ ...vendorIdField(), download: t.Optional(t.Boolean({ description: 'true: answer the bytes instead of the record' })) });

export const UploadBody = t.Object(
  {
    file: t.File({ description: 'the image (multipart field `file`); its type is read from its bytes' }),
    name: t.Optional(Text(255)),
    alt_text: t.Optional(Text(500)),
  },
  { additionalProperties: false },
);
export const UpdateBody = Strict({ name: t.Optional(Name), alt_text: t.Optional(t.Nullable(Text(500))) });
export const DeleteBody = Strict({ ids: t.Array(Uuid('id'), { minItems: 1, maxItems: 200 }) });
export const DeleteResponse = t.Object({ status: t.Literal('success'), deleted: Int() });
