import { dispatch, route } from '../shared/sim-server.ts';

/**
 * Bot-challenge simulator (real HTTP server, siteverify protocol). A widget token is issued by
 * `POST /_sim/tokens` (what a solved widget hands the browser); `POST /siteverify` (form `secret`,
 * `response`) answers `{success:true}` once per issued token with the right secret, else
 * `{success:false, "error-codes":[...]}` (`invalid-input-secret`, `invalid-input-response`,
 * `timeout-or-duplicate`).
 */
export function startChallengeSimulator(opts: { port?: number; secret: string }) {
  const issued = new Set<string>();
  const spent = new Set<string>();
  const json = (status: number, body: unknown) => Response.json(body, { status });
  const routes = [
    route('POST', '/_sim/tokens', () => {
      const token = `chl_${crypto.randomUUID()}`;
      issued.add(token);
      return json(201, { token });
    }),
    route('POST', '/siteverify', async (req) => {
      const form = new URLSearchParams(await req.text());
      if (form.get('secret') !== opts.secret) return json(200, { success: false, 'error-codes': ['invalid-input-secret'] });
      const response = form.get('response') ?? '';
      if (spent.has(response)) return json(200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
      if (!issued.has(response)) return json(200, { success: false, 'error-codes': ['invalid-input-response'] });
      issued.delete(response);
      spent.add(response);
      return json(200, { success: true, 'error-codes': [] });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: '127.0.0.1', fetch: (req) => dispatch(routes, req, () => json(404, { error: 'not_found' })) });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    /** A token as a solved widget would give it. */
    issue: () => {
      const token = `chl_${crypto.randomUUID()}`;
      issued.add(token);
      return token;
    },
    stop: async () => void server.stop(true),
  };
}
