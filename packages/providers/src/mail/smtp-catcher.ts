import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

export interface CaughtMail {
  id: number;
  from: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  received_at: string;
}

/**
 * A local SMTP catcher for development and tests (smtp-server + mailparser): it accepts every message
 * and keeps it in memory, readable over a small HTTP API, so a test reads the mail that was really sent.
 * `GET /messages?to=` lists (newest last), `DELETE /messages` empties. Never for production.
 */
export async function startSmtpCatcher(opts: { smtpPort?: number; httpPort?: number; host?: string } = {}) {
  const host = opts.host ?? '127.0.0.1';
  const mails: CaughtMail[] = [];
  let seq = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    size: 1024 * 1024,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((p) => {
          mails.push({
            id: ++seq,
            from: p.from?.text ?? '',
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: p.subject ?? '',
            text: p.text ?? '',
            html: typeof p.html === 'string' ? p.html : '',
            received_at: new Date().toISOString(),
          });
          if (mails.length > 1000) mails.shift();
          callback();
        })
        .catch((e: Error) => callback(e));
    },
  });
  await new Promise<void>((resolve, reject) => {
    smtp.once('error', reject);
    smtp.listen(opts.smtpPort ?? 0, host, () => resolve());
  });
  const smtpPort = (smtp.server.address() as { port: number }).port;
  const http = Bun.serve({
    hostname: host,
    port: opts.httpPort ?? 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/_sim/ping') return new Response('pong');
      if (url.pathname !== '/messages') return new Response('not found', { status: 404 });
      if (req.method === 'DELETE') {
        mails.length = 0;
        return Response.json({ status: 'success' });
      }
      const to = url.searchParams.get('to')?.toLowerCase();
      return Response.json({ data: to ? mails.filter((m) => m.to.includes(to)) : mails });
    },
  });
  return {
    smtpUrl: `smtp://${host}:${smtpPort}`,
    httpUrl: `http://${host}:${http.port}`,
    messages: (to?: string) => (to ? mails.filter((m) => m.to.includes(to.toLowerCase())) : [...mails]),
    /** Waits until a message to `to` matching `pred` has arrived (mail delivery is asynchronous to the catcher). */
    async waitFor(to: string, pred: (m: CaughtMail) => boolean = () => true, timeoutMs = 5000): Promise<CaughtMail> {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const m = mails.filter((x) => x.to.includes(to.toLowerCase()) && pred(x)).at(-1);
        if (m) return m;
        if (Date.now() > end) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      http.stop(true);
      await new Promise<void>((r) => smtp.close(() => r()));
    },
  };
}

export type SmtpCatcher = Awaited<ReturnType<typeof startSmtpCatcher>>;
