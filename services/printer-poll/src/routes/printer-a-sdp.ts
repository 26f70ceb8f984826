import { Elysia } from 'elysia';
import type { PrinterPollDeps } from '../context.ts';

/** Content type of every answer to a poll (PROTOCOLS "printer-a"), exactly. */
export const SDP_CONTENT_TYPE = 'text/xml; charset=utf-8';

export type SdpRequest =
  | { kind: 'GetRequest'; printerId: string; name: string | undefined }
  | { kind: 'SetResponse'; printerId: string; responseFile: string };

export type SdpParse = { ok: true; request: SdpRequest } | { ok: false; error: string };

/** Reads a poll's `application/x-www-form-urlencoded` body. */
export function parseSdpBody(raw: string): SdpParse {
  const form = new URLSearchParams(raw);
  const type = form.get('ConnectionType');
  if (!type) return { ok: false, error: 'Missing ConnectionType' };
  if (type !== 'GetRequest' && type !== 'SetResponse') return { ok: false, error: `Unsupported ConnectionType: ${type.slice(0, 40)}` };
  const printerId = form.get('ID');
  if (!printerId) return { ok: false, error: 'Missing ID' };
  if (type === 'GetRequest') return { ok: true, request: { kind: 'GetRequest', printerId, name: form.get('Name') ?? undefined } };
  return { ok: true, request: { kind: 'SetResponse', printerId, responseFile: form.get('ResponseFile') ?? '' } };
}

/** What a log line may say about a result report: job id, success and code (never the whole document). */
export function summariseResponseFile(xml: string): { printjobid?: string; success?: boolean; code?: string } {
  const out: { printjobid?: string; success?: boolean; code?: string } = {};
  const job = /<printjobid>([^<]{1,30})<\/printjobid>/.exec(xml)?.[1];
  if (job !== undefined) out.printjobid = job;
  const success = /<response\b[^>]*\bsuccess="(true|false)"/.exec(xml)?.[1];
  if (success !== undefined) out.success = success === 'true';
  const code = /<response\b[^>]*\bcode="([^"]{0,40})"/.exec(xml)?.[1];
  if (code) out.code = code;
  return out;
}

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });

/**
 * `POST /print/printer-a/sdp`: Server Direct Print polls (PROTOCOLS "printer-a").
 * - `ConnectionType=GetRequest&ID=<id>`: there are no printer jobs yet, so always "nothing to print":
 *   `200`, `Content-Type: text/xml; charset=utf-8`, empty body.
 * - `ConnectionType=SetResponse&ID=<id>&ResponseFile=<xml>`: the result is logged; empty `200`.
 * - ConnectionType or ID missing, or another ConnectionType: `400` with a plain-text reason.
 */
export function printerASdpRoutes(deps: PrinterPollDeps) {
  const log = deps.log.child({ route: 'printer-a-sdp' });
  return new Elysia({ name: 'printer-a-sdp' }).post(
    '/print/printer-a/sdp',
    async ({ body }) => {
      // PRINTER AUTHENTICATION: not implemented yet (a later issue). The printer's token (query
      // `token` or header `X-Printer-Token`) is NOT checked here: every poll is accepted, and the ID
      // is not looked up in the printer registry. The check belongs here, before the body is used.

      const parsed = parseSdpBody(typeof body === 'string' ? body : '');
      if (!parsed.ok) return text(400, parsed.error);
      const req = parsed.request;
      switch (req.kind) {
        case 'GetRequest':
          log.debug('printer poll', { printer_id: req.printerId });
          return new Response(null, { status: 200, headers: { 'content-type': SDP_CONTENT_TYPE } });
        case 'SetResponse':
          log.info('printer result', { printer_id: req.printerId, ...summariseResponseFile(req.responseFile) });
          return new Response(null, { status: 200 });
      }
    },
    // The raw text whatever the declared type: the form is read by `parseSdpBody`.
    { parse: 'text', detail: { summary: 'printer-a Server Direct Print poll' } },
  );
}
