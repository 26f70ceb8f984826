import { t } from 'elysia';
import { PathId, vendorIdField, Int } from '../shared.schemas.ts';

/** Schemas of description-generator and ai-photo (spec 1 "Loyalty, setup, utilities"). */
export const VendorQuery = t.Object(vendorIdField('admin-vendor-override: merchant id to act on (internal admins and the merchant\'s reseller)'));
export const ContentParams = t.Object({ contentId: PathId({ description: 'the generated photo id' }) });

export const DescriptionBody = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 120, pattern: '\\S', error: 'The name field is required and may not be greater than 120 characters.' }),
    keywords: t.Optional(t.Array(t.String({ maxLength: 40, error: 'Each keyword may not be greater than 40 characters.' }), { maxItems: 10, error: 'The keywords field may not have more than 10 items.' })),
    language: t.Optional(t.String({ pattern: '^[a-z]{2}$', maxLength: 2, error: 'The language field must be a two-letter language code.' })),
    tone: t.Optional(t.Union([t.Literal('friendly'), t.Literal('formal'), t.Literal('playful')], { error: 'The tone field must be friendly, formal or playful.' })),
  },
  { additionalProperties: false },
);
export const DescriptionResponse = t.Object({ data: t.Object({ description: t.String() }) });

export const PhotoBody = t.Object(
  { prompt: t.String({ minLength: 1, maxLength: 500, pattern: '\\S', error: 'The prompt field is required and may not be greater than 500 characters.' }) },
  { additionalProperties: false },
);
const Photo = {
  content_id: t.String(),
  status: t.Union([t.Literal('processing'), t.Literal('completed'), t.Literal('failed')]),
  prompt: t.String(),
  mime_type: t.Nullable(t.String()),
  image: t.Nullable(t.String({ description: 'a data: URL of the PNG once completed' })),
  created_at: t.String({ format: 'date-time' }),
};
export const PhotoResponse = t.Object({ data: t.Object(Photo) });
export const GeneratedPhotoResponse = t.Object({ data: t.Object({ ...Photo, credits: Int() }) });
export const CreditsResponse = t.Object({ data: t.Object({ balance: Int() }) });
export const PackagesResponse = t.Object({
  data: t.Array(
    t.Object({
      value: t.String({ description: 'package id, the `package_id` of a purchase' }),
      label: t.String({ description: 'e.g. `10 credits — 5.00 EUR`' }),
      credits: Int(),
      price: Int({ description: 'in cents' }),
      currency: t.String(),
    }),
  ),
});

const PackageId = t.Union([t.Literal('small'), t.Literal('medium'), t.Literal('large')], { error: 'The package id must be one of small, medium, large.' });
const ReturnUrl = (field: string) => t.String({ maxLength: 2000, pattern: '^https?://[^\\s]+$', error: `The ${field} field must be a valid http(s) URL.` });
export const CheckoutBody = t.Object(
  { package_id: PackageId, success_url: t.Optional(ReturnUrl('success url')), cancel_url: t.Optional(ReturnUrl('cancel url')) },
  { additionalProperties: false },
);
export const CheckoutResponse = t.Object({ data: t.Object({ purchase_id: t.String(), url: t.String() }) });
export const PurchaseBody = t.Object(
  { package_id: PackageId, billing_profile_id: t.Optional(t.String({ format: 'uuid', maxLength: 36, error: 'The billing profile id must be a UUID.' })) },
  { additionalProperties: false },
);
export const PurchaseResponse = t.Object({ data: t.Object({ purchase_id: t.String(), credits: Int(), balance: Int() }) });
