import { dispatch, jsonBody, route } from '../shared/sim-server.ts';

export interface SentSms {
  id: string;
  to: string;
  text: string;
  at: string;
}

/**
 * SMS provider simulator (real HTTP server): `POST /v1/messages` with `Authorization: Bearer <key>`
 * and `{to, text}` (to in E.164) answers 201 `{id, status:'queued'}`; a wrong key is 401, a bad body
 * 422. `GET /_sim/messages?to=` lists what was sent (newest last) so tests read the code as a phone would.
 */
export function startSmsSimulator(opts: { port?: number; apiKey: string }) {
  const sent: SentSms[] = [];
  const json = (status: number, body: unknown) => Response.json(body, { status });
  const routes = [
    route('POST', '/v1/messages', async (req) => {
      if (req.headers.get('authorization') !== `Bearer ${opts.apiKey}`) return json(401, { error: 'unauthorized' });
      const b = await jsonBody(req);
      if (!b || typeof b.to !== 'string' || !/^\+[1-9][0-9]{6,14}$/.test(b.to) || typeof b.text !== 'string' || !b.text || b.text.length > 640) {
        return json(422, { error: 'invalid_message' });
      }
      const msg = { id: `sms_${crypto.randomUUID()}`, to: b.to, text: b.text, at: new Date().toISOString() };
      sent.push(msg);
      return json(201, { id: msg.id, status: 'queued' });
    }),
    route('GET', '/_sim/messages', (_req, _p, url) => {
      const to = url.searchParams.get('to');
      return json(200, { data: sent.filter((m) => !to || m.to === to) });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => json(404, { error: 'not_found' })) });
  return { url: `http://127.0.0.1:${server.port}`, sent, stop: async () => void server.stop(true) };
}
