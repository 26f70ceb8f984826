/**
 * card-b's webhook URL verification (PROTOCOLS.md "card-b"): the provider sends `GET` to the URL and
 * expects `{"Key": "…"}`, the merchant's verification key, before it sends events there. Null when the
 * URL passes; otherwise why not. Without an `expectedKey` (a simulator not told the merchant's key) any
 * non-empty `Key` passes.
 */
export async function cardBHandshake(url: string, expectedKey: string | undefined): Promise<string | null> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'GET', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    return `not reachable: ${e instanceof Error ? e.message : String(e)}`;
  }
  const body: unknown = await res.json().catch(() => null);
  if (res.status < 200 || res.status > 299) return `answered ${res.status}`;
  const key = body && typeof body === 'object' && !Array.isArray(body) ? (body as { Key?: unknown }).Key : undefined;
  if (typeof key !== 'string' || key.length === 0) return 'answered no {"Key": …}';
  if (expectedKey !== undefined && key !== expectedKey) return 'answered another key';
  return null;
}
