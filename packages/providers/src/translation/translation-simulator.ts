import { dispatch, jsonBody, route } from '../shared/sim-server.ts';

/**
 * Translation simulator: a real HTTP server answering DeepL-shaped `POST /v2/translate`. Checks the
 * `DeepL-Auth-Key` header (403 otherwise) and "translates" each text deterministically as
 * `[<TARGET>] <text>`, so tests can tell what was sent where. `POST /_sim/down` `{down:true}`: 503.
 * `POST /_sim/delay` `{ms}`: answers each translation that much later (a slow provider, for races).
 */
export function startTranslationSimulator(opts: { port?: number; apiKey: string }) {
  let down = false;
  let delayMs = 0;
  const requests: { texts: string[]; target: string }[] = [];
  const routes = [
    route('POST', '/v2/translate', async (req) => {
      if (req.headers.get('authorization') !== `DeepL-Auth-Key ${opts.apiKey}`) return Response.json({ message: 'Wrong key' }, { status: 403 });
      if (down) return Response.json({ message: 'Service unavailable' }, { status: 503 });
      const b = await jsonBody(req);
      const texts = Array.isArray(b?.text) ? b.text.filter((t): t is string => typeof t === 'string') : [];
      const target = typeof b?.target_lang === 'string' ? b.target_lang : '';
      if (!texts.length || texts.length > 50 || !target) return Response.json({ message: 'Bad request' }, { status: 400 });
      requests.push({ texts, target });
      if (delayMs > 0) await Bun.sleep(delayMs);
      return Response.json({ translations: texts.map((t) => ({ detected_source_language: 'EN', text: `[${target}] ${t}` })) });
    }),
    route('POST', '/_sim/delay', async (req) => {
      const ms = (await jsonBody(req))?.ms;
      delayMs = typeof ms === 'number' && ms >= 0 ? Math.min(ms, 30_000) : 0;
      return Response.json({ ok: true });
    }),
    route('POST', '/_sim/down', async (req) => {
      down = (await jsonBody(req))?.down === true;
      return Response.json({ ok: true });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => Response.json({ message: 'not found' }, { status: 404 })) });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
