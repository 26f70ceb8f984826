import { Elysia } from 'elysia';
import type { PrinterPollDeps } from './context.ts';
import { healthRoutes } from './routes/health.ts';
import { printerASdpRoutes } from './routes/printer-a-sdp.ts';
import { PollState } from './poll-state.ts';
import { PollThrottle } from './poll-throttle.ts';
import { PRINTER_POLL_THROTTLE } from './routes/printer-a-sdp.ts';

/** The printer-poll service: the printers' poll endpoint and its health. */
export function createPrinterPollApp(deps: PrinterPollDeps, state: PollState = new PollState(deps.db), throttle: PollThrottle = new PollThrottle(deps.redis, PRINTER_POLL_THROTTLE)) {
  return new Elysia()
    .onError(({ code, error }) => {
      if (code === 'NOT_FOUND') return new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      // The server cut a body over its limit (serve-options.ts) while it was read: the route's own 413.
      if (code === 'PARSE') {
        const over = /maxRequestBodySize/.test(String((error as { cause?: unknown }).cause ?? ''));
        return new Response(over ? 'Payload Too Large' : 'Bad Request', { status: over ? 413 : 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      }
      deps.log.error('request failed', { err: error });
      return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    })
    .use(healthRoutes(deps))
    .use(printerASdpRoutes(deps, state, throttle));
}

export type PrinterPollApp = ReturnType<typeof createPrinterPollApp>;
