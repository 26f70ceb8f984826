import { createHash } from 'node:crypto';
import { dispatch, jsonBody, route } from '../shared/sim-server.ts';
import { solidPng } from './png.ts';

/**
 * Generation simulator: a real HTTP server. `POST /v1/descriptions` writes a deterministic sentence
 * from the name and keywords; `POST /v1/images` answers a real 16×16 PNG whose colour is derived from
 * the prompt (same prompt, same bytes). Bearer key checked (401). `POST /_sim/down` `{down:true}`: 503.
 */
export function startGenerationSimulator(opts: { port?: number; apiKey: string }) {
  let down = false;
  const requests: { kind: 'description' | 'image'; body: Record<string, unknown> }[] = [];
  const guard = (req: Request) => {
    if (req.headers.get('authorization') !== `Bearer ${opts.apiKey}`) return Response.json({ error: 'invalid api key' }, { status: 401 });
    if (down) return Response.json({ error: 'service unavailable' }, { status: 503 });
    return null;
  };
  const routes = [
    route('POST', '/v1/descriptions', async (req) => {
      const refused = guard(req);
      if (refused) return refused;
      const b = (await jsonBody(req)) ?? {};
      const name = typeof b.name === 'string' ? b.name.trim() : '';
      if (!name) return Response.json({ error: 'name required' }, { status: 400 });
      requests.push({ kind: 'description', body: b });
      const kw = Array.isArray(b.keywords) ? b.keywords.filter((k): k is string => typeof k === 'string') : [];
      const tone = typeof b.tone === 'string' ? b.tone : 'friendly';
      const lang = typeof b.language === 'string' ? b.language : 'en';
      return Response.json({ description: `[${lang}/${tone}] ${name}${kw.length ? ` — ${kw.join(', ')}` : ''}. Freshly prepared and full of flavour.` });
    }),
    route('POST', '/v1/images', async (req) => {
      const refused = guard(req);
      if (refused) return refused;
      const b = (await jsonBody(req)) ?? {};
      const prompt = typeof b.prompt === 'string' ? b.prompt.trim() : '';
      if (!prompt) return Response.json({ error: 'prompt required' }, { status: 400 });
      requests.push({ kind: 'image', body: b });
      const h = createHash('sha256').update(prompt).digest();
      const png = solidPng(16, [h[0]!, h[1]!, h[2]!]);
      return Response.json({ image_base64: Buffer.from(png).toString('base64'), mime_type: 'image/png' });
    }),
    route('POST', '/_sim/down', async (req) => {
      down = (await jsonBody(req))?.down === true;
      return Response.json({ ok: true });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => Response.json({ error: 'not found' }, { status: 404 })) });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
