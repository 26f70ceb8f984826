import { Elysia } from 'elysia';
import { bindTenant } from '@pos/db';
import type { ThrottleRule } from '@pos/kernel';
import { printRequestInfo } from '@pos/domain/printing/epos-xml';
import { printJobIdOf, readPrintJobId, readResponseFile } from '@pos/domain/printing/printer-rules';
import { hashPrinterToken } from '@pos/core/printers/printer-tokens';
import { pollQueue, recordPrintResult } from '@pos/core/printers/print-jobs';
import { PollState } from '../poll-state.ts';
import { PollThrottle } from '../poll-throttle.ts';
import type { PrinterPollDeps } from '../context.ts';
import { createClientAddress } from '@pos/core/network/client-address';
import { throttleAddress } from '@pos/core/network/throttle-subject';

/** Content type of every answer to a poll (PROTOCOLS "printer-a"), exactly. */
export const SDP_CONTENT_TYPE = 'text/xml; charset=utf-8';

/**
 * Throttle `printer-poll` (spec 2 "Printer poll route"; the numbers are ours, docs/decisions.md):
 * 120 requests a minute per printer token, twice what a printer polling every second sends, and
 * 120 requests a minute per client address without a live token (missing, unknown, revoked).
 */
export const PRINTER_POLL_THROTTLE: ThrottleRule = { name: 'printer-poll', limit: 120, windowSeconds: 60 };
export const DEFAULT_LEASE_MS = 60_000;
/** The largest poll body accepted (64 KiB, counted in bytes); larger is 413. */
export const MAX_POLL_BODY_BYTES = 65_536;

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
export const summariseResponseFile = readResponseFile;

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
const tooMany = (retryAfter: number) => new Response('Too Many Attempts.', { status: 429, headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(retryAfter) } });
const EMPTY_XML = () => new Response(null, { status: 200, headers: { 'content-type': SDP_CONTENT_TYPE } });

/**
 * `POST /print/printer-a/sdp`: Server Direct Print polls (PROTOCOLS "printer-a"), outside every session
 * group. Middleware `printer-poll` throttle, then `printer.auth`: the token (query `token` or header
 * `X-Printer-Token`) selects the tenant and the printer; a missing or unknown token is 401 and says
 * nothing about whether a printer exists.
 * - `GetRequest`: the head of the printer's queue as a `PrintRequestInfo` Version 2.00 document with a
 *   `printjobid`, leased to this poll; or the empty document.
 * - `SetResponse`: the result is recorded (printed, retried on the next poll, or failed); empty `200`.
 * - ConnectionType or ID missing, or another ConnectionType: `400` with a plain-text reason.
 */
export function printerASdpRoutes(deps: PrinterPollDeps, state: PollState = new PollState(deps.db), throttle: PollThrottle = new PollThrottle(deps.redis, PRINTER_POLL_THROTTLE)) {
  const log = deps.log.child({ route: 'printer-a-sdp' });
  const now = deps.now ?? (() => new Date());
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  const clientAddress = deps.clientAddress ?? throttleAddress(createClientAddress([]));
  return new Elysia({ name: 'printer-a-sdp' }).post(
    '/print/printer-a/sdp',
    async ({ body, query, headers, request, server }) => {
      const raw = (query as Record<string, string | undefined>).token ?? headers['x-printer-token'];
      const token = typeof raw === 'string' && raw.length > 0 && raw.length <= 200 ? raw : undefined;
      const throttled = (deps.appEnv ?? 'test') !== 'local';
      // Requests without a live token count against their client address, so a new guess per request
      // gets no fresh allowance; past the limit, an address's unknown tokens are not even looked up.
      // A token this process already knows to be live is never held back by its address.
      const address = `addr:${clientAddress(request, server)}`;
      if (throttled && !state.knows(token)) {
        const t = throttle.peek(address);
        if (!t.allowed) return tooMany(t.retryAfter);
      }
      const owner = await state.resolve(token);
      if (!owner) {
        const t = throttled ? throttle.hit(address) : { allowed: true, retryAfter: 0 };
        return t.allowed ? text(401, 'Unauthorized') : tooMany(t.retryAfter);
      }
      const tokenHash = hashPrinterToken(token!);
      if (throttled) {
        const t = throttle.hit(tokenHash.slice(0, 32));
        if (!t.allowed) return tooMany(t.retryAfter);
      }

      // A poll is a short form; a result report a few hundred bytes. Anything far larger is not a printer.
      // The limit is in bytes (the declared length, and the UTF-8 size of what arrived), not characters.
      if (Number(headers['content-length'] ?? 0) > MAX_POLL_BODY_BYTES) return text(413, 'Payload Too Large');
      if (typeof body === 'string' && Buffer.byteLength(body, 'utf8') > MAX_POLL_BODY_BYTES) return text(413, 'Payload Too Large');
      const parsed = parseSdpBody(typeof body === 'string' ? body : '');
      if (!parsed.ok) return text(400, parsed.error);
      const req = parsed.request;
      switch (req.kind) {
        case 'GetRequest': {
          const at = now();
          // Known idle (nothing queued since the last look): no database round trip, the stamp is batched.
          if (state.isIdle(owner.printer_id)) {
            await state.stamp(owner, at, tokenHash);
            return EMPTY_XML();
          }
          const mark = state.mark();
          const { job, empty } = await pollQueue(deps.db, owner.tenant_database, owner.printer_id, at, leaseMs, tokenHash);
          if (empty) state.markIdle(owner.printer_id, mark);
          if (!job) return EMPTY_XML();
          return new Response(printRequestInfo(printJobIdOf(job.seq, job.attempt), job.document), { status: 200, headers: { 'content-type': SDP_CONTENT_TYPE } });
        }
        case 'SetResponse': {
          const summary = readResponseFile(req.responseFile);
          const jobId = summary.printjobid ? readPrintJobId(summary.printjobid) : null;
          const tdb = bindTenant(deps.db, owner.tenant_database);
          const at = now();
          await state.stamp(owner, at, tokenHash);
          const outcome = jobId && summary.success !== undefined ? await recordPrintResult(tdb, owner.printer_id, jobId.seq, summary.success, summary.code, at, jobId.attempt) : null;
          log.info('printer result', { printer_id: owner.printer_id, ...summary, outcome });
          return new Response(null, { status: 200 });
        }
      }
    },
    // The raw text whatever the declared type: the form is read by `parseSdpBody`.
    { parse: 'text', detail: { summary: 'printer-a Server Direct Print poll' } },
  );
}
