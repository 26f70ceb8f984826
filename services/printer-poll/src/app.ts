import { Elysia } from 'elysia';
import type { PrinterPollDeps } from './context.ts';
import { healthRoutes } from './routes/health.ts';
import { printerASdpRoutes } from './routes/printer-a-sdp.ts';

/** The printer-poll service: the printers' poll endpoint and its health. */
export function createPrinterPollApp(deps: PrinterPollDeps) {
  return new Elysia()
    .onError(({ code, error }) => {
      if (code === 'NOT_FOUND') return new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
      deps.log.error('request failed', { err: error });
      return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    })
    .use(healthRoutes(deps))
    .use(printerASdpRoutes(deps));
}

export type PrinterPollApp = ReturnType<typeof createPrinterPollApp>;
