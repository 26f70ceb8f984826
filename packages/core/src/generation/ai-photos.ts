import { errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import { GenerationUnavailable, type GenerationClient } from '@pos/providers/generation/generation-client';
import { creditCredits, debitCredits } from './ai-credits.ts';
import { isUuid } from '@pos/domain/ids';

export const GENERATION_NOT_CONFIGURED = 'AI generation is not configured.';
export const GENERATION_UNAVAILABLE = 'The AI generation service is unavailable.';

export interface AiPhotoView {
  content_id: string;
  status: 'processing' | 'completed' | 'failed';
  prompt: string;
  mime_type: string | null;
  /** The image as a data URL once completed. */
  image: string | null;
  created_at: string;
}

function view(r: { id: string; status: AiPhotoView['status']; prompt: string; mime_type: string | null; image: Buffer | Uint8Array | null; created_at: Date }): AiPhotoView {
  return {
    content_id: r.id,
    status: r.status,
    prompt: r.prompt,
    mime_type: r.mime_type,
    image: r.image && r.mime_type ? `data:${r.mime_type};base64,${Buffer.from(r.image).toString('base64')}` : null,
    created_at: r.created_at.toISOString(),
  };
}

/**
 * One credit per photo, taken before the provider is asked (guarded, never below zero) and given back
 * when the provider fails, which leaves a `failed` record and answers 503.
 */
export async function generateAiPhoto(tdb: TenantDb, client: GenerationClient | null, userId: string, prompt: string): Promise<AiPhotoView & { credits: number }> {
  if (!client) throw errors.unavailable(GENERATION_NOT_CONFIGURED);
  const text = prompt.trim();
  if (!text) throw errors.field('prompt', 'The prompt field is required.');
  let credits = await debitCredits(tdb, 1);
  const id = crypto.randomUUID();
  await tdb.insertInto('ai_photos').values({ id, prompt: text, status: 'processing', created_by: userId }).execute();
  let png: Uint8Array;
  try {
    png = await client.image(text);
  } catch (e) {
    if (!(e instanceof GenerationUnavailable)) throw e;
    await tdb.updateTable('ai_photos').set({ status: 'failed', updated_at: new Date() }).where('id', '=', id).execute();
    await creditCredits(tdb, 1);
    throw errors.unavailable(GENERATION_UNAVAILABLE);
  }
  const row = await tdb
    .updateTable('ai_photos')
    .set({ status: 'completed', mime_type: 'image/png', image: Buffer.from(png), updated_at: new Date() })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  credits = (await tdb.selectFrom('ai_credits').select('balance').where('id', '=', 1).executeTakeFirst())?.balance ?? credits;
  return { ...view(row), credits };
}

export async function aiPhotoStatus(tdb: TenantDb, contentId: string): Promise<AiPhotoView> {
  if (!isUuid(contentId)) throw errors.notFound('content');
  const row = await tdb.selectFrom('ai_photos').selectAll().where('id', '=', contentId).executeTakeFirst();
  if (!row) throw errors.notFound('content');
  return view(row);
}
