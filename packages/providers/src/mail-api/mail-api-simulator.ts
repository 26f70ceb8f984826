import { dispatch, jsonBody, route } from '../shared/sim-server.ts';

export interface SentMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  at: string;
}

/**
 * E-mail-send provider simulator (real HTTP server): `POST /v1/mail/send` with a bearer key and
 * `{from, to, subject, text}` answers 202 `{id}`; a wrong key 401, a bad body 422.
 * `GET /_sim/mail?to=` lists what was accepted.
 */
export function startMailApiSimulator(opts: { port?: number; apiKey: string }) {
  const sent: SentMail[] = [];
  const json = (status: number, body: unknown) => Response.json(body, { status });
  const str = (v: unknown, max: number) => typeof v === 'string' && v.length > 0 && v.length <= max;
  const routes = [
    route('POST', '/v1/mail/send', async (req) => {
      if (req.headers.get('authorization') !== `Bearer ${opts.apiKey}`) return json(401, { error: 'unauthorized' });
      const b = await jsonBody(req);
      if (!b || !str(b.from, 254) || !str(b.to, 254) || !String(b.to).includes('@') || !str(b.subject, 200) || !str(b.text, 20_000)) return json(422, { error: 'invalid_mail' });
      const mail = { id: `mail_${crypto.randomUUID()}`, from: b.from as string, to: b.to as string, subject: b.subject as string, text: b.text as string, at: new Date().toISOString() };
      sent.push(mail);
      return json(202, { id: mail.id });
    }),
    route('GET', '/_sim/mail', (_req, _p, url) => {
      const to = url.searchParams.get('to');
      return json(200, { data: sent.filter((m) => !to || m.to === to) });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => json(404, { error: 'not_found' })) });
  return { url: `http://127.0.0.1:${server.port}`, sent, stop: async () => void server.stop(true) };
}
