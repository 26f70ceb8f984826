import { AppError } from '@pos/kernel';

export const payloadTooLarge = (maxBytes: number) =>
  new AppError('payload_too_large', `The request body may not be larger than ${Math.floor(maxBytes / 1024)} KB.`);

/**
 * Reads a request body as UTF-8 text, refusing (413) as soon as it passes `maxBytes`: the declared
 * length is checked first, and a body without one is counted while it streams, so an oversized body
 * is never held in memory whole.
 */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return '';
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
  // fatal: a body that is not valid UTF-8 is malformed, not silently repaired.
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
}
