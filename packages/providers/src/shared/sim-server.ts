/** Small routing helper shared by the payment simulators (real HTTP servers, Bun.serve). */
export type Handler = (req: Request, params: Record<string, string>, url: URL) => Response | Promise<Response>;

export interface Route {
  readonly method: string;
  readonly pattern: RegExp;
  readonly keys: readonly string[];
  readonly handler: Handler;
}

/** `/v1/things/:id/cancel` -> a route matching exactly that shape (segments without `/`). */
export function route(method: string, path: string, handler: Handler): Route {
  const keys: string[] = [];
  const src = path.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === ':' ? c : `\\${c}`)).replace(/:([a-zA-Z_]+)/g, (_m, k: string) => {
    keys.push(k);
    return '([^/]+)';
  });
  return { method, pattern: new RegExp(`^${src}$`), keys, handler };
}

export function dispatch(routes: readonly Route[], req: Request, notFound: () => Response): Promise<Response> | Response {
  const url = new URL(req.url);
  // Readiness probe of dev and the e2e stack.
  if (url.pathname === '/_sim/ping' && req.method === 'GET') return new Response('pong');
  for (const r of routes) {
    if (r.method !== req.method) continue;
    const m = r.pattern.exec(url.pathname);
    if (!m) continue;
    const params: Record<string, string> = {};
    r.keys.forEach((k, i) => (params[k] = decodeURIComponent(m[i + 1]!)));
    return r.handler(req, params, url);
  }
  return notFound();
}

/** Reads a JSON body; null when absent or not JSON. */
export async function jsonBody(req: Request): Promise<Record<string, unknown> | null> {
  try {
    const v = await req.json();
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Posts `body` to `url` with `headers`; never throws (a simulator's webhook is fire-and-report). */
export async function postWebhook(url: string, body: string, headers: Record<string, string>): Promise<{ status: number } | { error: string }> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return { status: res.status };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
