import { AppError } from '@pos/kernel';

export const payloadTooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `The request body may not be larger than ${Math.floor(maxBytes / 1024)} KB.`);

/**
 * Reads a request body, refusing (413) as soon as it passes `maxBytes`: the declared length is
 * checked first, and a body without one is counted while it streams, so an oversized body is never
 * held in memory whole.
 */
export async function readBodyBytes(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      // Not awaited: cancelling one branch of a teed (cloned) body settles only when both are cancelled.
      void reader.cancel().catch(() => undefined);
      throw payloadTooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The body as UTF-8 text; bytes that are not UTF-8 make it malformed, never silently repaired. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  return new TextDecoder('utf-8', { fatal: true }).decode(await readBodyBytes(request, maxBytes));
}
