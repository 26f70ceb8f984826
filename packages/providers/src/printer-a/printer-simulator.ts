import { appendFileSync } from 'node:fs';

/**
 * A printer-a receipt printer that polls (PROTOCOLS "printer-a", Server Direct Print), as a real
 * process for dev, e2e and the benchmark: every interval it POSTs `ConnectionType=GetRequest` to its
 * poll URL with its token; a `PrintRequestInfo` answer is "printed" (appended as one JSON line to the
 * output file) and reported with `ConnectionType=SetResponse`. It can run out of paper, have its
 * cover open (reported with `EPTR_REC_EMPTY` / `EPTR_COVER_OPEN`, nothing printed) or go silent.
 *
 * Control API on its own port: `POST /_sim/paper-out|paper-in|cover-open|cover-close|silent|resume`,
 * `POST /_sim/pair` `{poll_url, token}` (what pairing writes into the printer), `GET /_sim/printed`
 * (the printed documents), `GET /_sim/state`.
 */

export interface PrintedDocument {
  printjobid: string;
  at: string;
  /** The text lines as printed. */
  lines: string[];
  /** Data of every QR code. */
  qr: string[];
}

export interface PrinterSimOptions {
  /** Poll URL (the token may be in its query already); empty until paired. */
  pollUrl?: string;
  token?: string;
  /** `query` (default) or `header` (`X-Printer-Token`). */
  tokenIn?: 'query' | 'header';
  intervalMs?: number;
  /** JSON lines of printed documents are appended here when set. */
  outputFile?: string;
  /** Port of the control API; 0 picks one, undefined starts none. */
  controlPort?: number;
  id?: string;
}

export interface PrinterSimState {
  paperOut: boolean;
  coverOpen: boolean;
  silent: boolean;
  polls: number;
  failedPolls: number;
  reports: { printjobid: string; success: boolean; code: string }[];
}

const unescapeXml = (s: string) =>
  s
    .replace(/&#10;/g, '\n')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** What a printer makes of a `PrintRequestInfo` document: the job id, its text lines and QR codes. */
export function readPrintRequest(xml: string): { printjobid: string; lines: string[]; qr: string[]; bytes: number } | null {
  const job = /<printjobid>([A-Za-z0-9_.-]{1,30})<\/printjobid>/.exec(xml)?.[1];
  if (!job || !xml.includes('<PrintRequestInfo Version="2.00">')) return null;
  const text = [...xml.matchAll(/<text>([^<]*)<\/text>/g)].map((m) => unescapeXml(m[1]!)).join('');
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const qr = [...xml.matchAll(/<symbol type="qrcode_model_2"[^>]*>([^<]*)<\/symbol>/g)].map((m) => unescapeXml(m[1]!));
  return { printjobid: job, lines, qr, bytes: Buffer.byteLength(xml, 'utf8') };
}

export const responseFile = (jobId: string, success: boolean, code: string, status = 0) =>
  `<PrintResponseInfo Version="2.00"><ePOSPrint><Parameter><devid>local_printer</devid><printjobid>${jobId}</printjobid></Parameter><PrintResponse><response success="${success}" code="${code}" status="${status}" battery="0"/></PrintResponse></ePOSPrint></PrintResponseInfo>`;

const PAPER_OUT_STATUS = 0x00080000;
const MAX_BYTES = 2 * 1024 * 1024;

export function startPrinterSimulator(opts: PrinterSimOptions = {}) {
  const id = opts.id ?? 'local_printer';
  let pollUrl = opts.pollUrl ?? '';
  let token = opts.token ?? '';
  const intervalMs = opts.intervalMs ?? 5000;
  const state: PrinterSimState = { paperOut: false, coverOpen: false, silent: false, polls: 0, failedPolls: 0, reports: [] };
  const printed: PrintedDocument[] = [];
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<void> = Promise.resolve();

  const target = () => {
    const url = new URL(pollUrl);
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (token && opts.tokenIn === 'header') headers['x-printer-token'] = token;
    else if (token) url.searchParams.set('token', token);
    return { url: url.toString(), headers };
  };

  async function post(form: Record<string, string>): Promise<Response> {
    const t = target();
    return fetch(t.url, { method: 'POST', headers: t.headers, body: new URLSearchParams(form).toString() });
  }

  async function report(jobId: string, success: boolean, code: string, status = 0) {
    state.reports.push({ printjobid: jobId, success, code });
    await post({ ConnectionType: 'SetResponse', ID: id, ResponseFile: responseFile(jobId, success, code, status) }).then((r) => r.arrayBuffer());
  }

  /** One poll: ask for work, print it (or fail as the printer's state says) and report. */
  async function pollOnce(): Promise<void> {
    if (!pollUrl || state.silent) return;
    state.polls++;
    let body: string;
    try {
      const res = await post({ ConnectionType: 'GetRequest', ID: id });
      body = await res.text();
      if (res.status !== 200) {
        state.failedPolls++;
        return;
      }
    } catch {
      state.failedPolls++;
      return;
    }
    if (!body) return;
    const job = readPrintRequest(body);
    if (!job) return;
    if (job.bytes > MAX_BYTES) return report(job.printjobid, false, 'SchemaError');
    if (state.coverOpen) return report(job.printjobid, false, 'EPTR_COVER_OPEN');
    if (state.paperOut) return report(job.printjobid, false, 'EPTR_REC_EMPTY', PAPER_OUT_STATUS);
    const doc: PrintedDocument = { printjobid: job.printjobid, at: new Date().toISOString(), lines: job.lines, qr: job.qr };
    printed.push(doc);
    if (opts.outputFile) appendFileSync(opts.outputFile, JSON.stringify(doc) + '\n');
    await report(job.printjobid, true, '');
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      inFlight = pollOnce()
        .catch(() => {})
        .finally(schedule);
    }, intervalMs);
  }
  schedule();

  const control =
    opts.controlPort === undefined
      ? undefined
      : Bun.serve({
          port: opts.controlPort,
          hostname: '127.0.0.1',
          async fetch(req) {
            const path = new URL(req.url).pathname;
            const json = (v: unknown, status = 200) => Response.json(v, { status });
            if (req.method === 'GET' && path === '/_sim/printed') return json({ printed });
            if (req.method === 'GET' && path === '/_sim/state') return json({ ...state, paired: !!pollUrl, printed: printed.length });
            if (req.method !== 'POST') return json({ message: 'Not Found' }, 404);
            switch (path) {
              case '/_sim/paper-out':
                state.paperOut = true;
                break;
              case '/_sim/paper-in':
                state.paperOut = false;
                break;
              case '/_sim/cover-open':
                state.coverOpen = true;
                break;
              case '/_sim/cover-close':
                state.coverOpen = false;
                break;
              case '/_sim/silent':
                state.silent = true;
                break;
              case '/_sim/resume':
                state.silent = false;
                break;
              case '/_sim/poll':
                await pollOnce();
                break;
              case '/_sim/pair': {
                const b = (await req.json().catch(() => null)) as { poll_url?: unknown; token?: unknown } | null;
                if (!b || typeof b.poll_url !== 'string' || typeof b.token !== 'string') return json({ message: 'poll_url and token are required' }, 422);
                pollUrl = b.poll_url;
                token = b.token;
                break;
              }
              default:
                return json({ message: 'Not Found' }, 404);
            }
            return json({ ok: true, ...state });
          },
        });

  return {
    state,
    printed,
    controlUrl: control ? `http://127.0.0.1:${control.port}` : undefined,
    pair(url: string, t: string) {
      pollUrl = url;
      token = t;
    },
    pollOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await inFlight;
      await control?.stop(true);
    },
  };
}

export type PrinterSimulator = ReturnType<typeof startPrinterSimulator>;
