/**
 * A real HTTP hop in front of a provider simulator, for the tests of lost and late provider answers:
 * the API under test is pointed at `url`, and `intercept` sees every request with a way to forward it
 * to the simulator. It answers what the simulator answered, or replaces it (a 502 after the provider
 * acted: an answer lost on the way back; a refusal without forwarding: a request that never arrived;
 * an answer held until the test lets it go: a process that dies while waiting).
 */
export interface ProviderHop {
  readonly url: string;
  stop(): void;
}

export interface HopRequest {
  readonly method: string;
  readonly path: string;
  /** Sends the request on to the simulator and gives back its answer. */
  forward(): Promise<Response>;
}

export function providerHop(target: string, intercept: (req: HopRequest) => Promise<Response> = (r) => r.forward()): ProviderHop {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const u = new URL(req.url);
      // Read now: a test may forward the request after answering it (a request that arrives late).
      const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await req.arrayBuffer();
      const forward = () => fetch(`${target}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body });
      return intercept({ method: req.method, path: u.pathname, forward });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) };
}

/** The answer of a hop that lost the provider's answer on the way back. */
export const badGateway = () => new Response('bad gateway', { status: 502 });

/** A gate a hop waits at: `reached` resolves when a request gets there, `release` lets it go on. */
export function gate(): { reached: Promise<void>; wait(): Promise<void>; release(): void } {
  let release: () => void = () => undefined;
  const open = new Promise<void>((r) => (release = r));
  let arrive: () => void = () => undefined;
  const reached = new Promise<void>((r) => (arrive = r));
  return {
    reached,
    wait: () => {
      arrive();
      return open;
    },
    release: () => release(),
  };
}
