/**
 * card-a's `Idempotency-Key` on POST requests, as the provider keeps it: per account (`Card-A-Account`,
 * else the platform) and key, for 24 hours.
 * - The same key again with the same request (path and body) answers the first answer again, status
 *   and body, with `Idempotent-Replayed: true`; nothing is done twice.
 * - The same key with another path or other parameters is 400, error type `idempotency_error`.
 * - The same key while its first request is still running is 409 `idempotency_key_in_use`.
 * - As at the provider, no answer is kept when the request never started: a refused API key (401) or
 *   parameters that failed validation (400 `parameter_*`); the key can then be used again.
 * Requests without the header, and GETs, pass through untouched.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

type ErrorAnswer = (status: number, code: string, message: string) => Response;

interface Stored {
  readonly fingerprint: string;
  readonly at: number;
  answer: { status: number; headers: [string, string][]; body: string } | null;
}

export function cardAIdempotency(error: ErrorAnswer, now: () => number = Date.now) {
  const keys = new Map<string, Stored>();

  // A key misuse is its own error type at card-a (`idempotency_error`), without a code.
  const idempotencyError = (key: string) =>
    Response.json(
      { error: { type: 'idempotency_error', message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.` } },
      { status: 400 },
    );

  function prune(at: number) {
    for (const [k, s] of keys) if (at - s.at >= IDEMPOTENCY_TTL_MS) keys.delete(k);
  }

  return async function idempotent(req: Request, handle: (req: Request) => Response | Promise<Response>): Promise<Response> {
    const key = req.headers.get('idempotency-key');
    if (req.method !== 'POST' || !key) return handle(req);
    const body = await req.text();
    const at = now();
    prune(at);
    const scope = `${req.headers.get('card-a-account') ?? ''}\u0000${key}`;
    const fingerprint = `${new URL(req.url).pathname}\u0000${body}`;
    const seen = keys.get(scope);
    if (seen) {
      if (seen.fingerprint !== fingerprint) return idempotencyError(key);
      if (!seen.answer) return error(409, 'idempotency_key_in_use', 'There is currently another in-progress request using this Idempotency-Key. Please try again later.');
      const headers = new Headers(seen.answer.headers);
      headers.set('idempotent-replayed', 'true');
      return new Response(seen.answer.body, { status: seen.answer.status, headers });
    }
    const stored: Stored = { fingerprint, at, answer: null };
    keys.set(scope, stored);
    let res: Response;
    try {
      res = await handle(new Request(req.url, { method: req.method, headers: req.headers, body }));
    } catch (e) {
      keys.delete(scope);
      throw e;
    }
    const text = await res.text();
    if (res.status === 401 || (res.status === 400 && /"code":"parameter_/.test(text))) {
      keys.delete(scope);
    } else {
      stored.answer = { status: res.status, headers: [...res.headers.entries()], body: text };
    }
    return new Response(text, { status: res.status, headers: res.headers });
  };
}
