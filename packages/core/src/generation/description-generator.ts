import { errors } from '@pos/kernel';
import { GenerationUnavailable, type GenerationClient } from '@pos/providers/generation/generation-client';
import { GENERATION_NOT_CONFIGURED, GENERATION_UNAVAILABLE } from './ai-photos.ts';

export interface DescriptionInput {
  name: string;
  keywords?: string[];
  language?: string;
  tone?: 'friendly' | 'formal' | 'playful';
}

/** An item description from the provider; free (credits are for photos), nothing stored. */
export async function generateDescription(client: GenerationClient | null, input: DescriptionInput): Promise<{ description: string }> {
  if (!client) throw errors.unavailable(GENERATION_NOT_CONFIGURED);
  const name = input.name.trim();
  if (!name) throw errors.field('name', 'The name field is required.');
  try {
    const description = await client.describe({
      name,
      keywords: (input.keywords ?? []).map((k) => k.trim()).filter(Boolean),
      language: input.language ?? 'en',
      tone: input.tone ?? 'friendly',
    });
    return { description: description.trim() };
  } catch (e) {
    if (e instanceof GenerationUnavailable) throw errors.unavailable(GENERATION_UNAVAILABLE);
    throw e;
  }
}
