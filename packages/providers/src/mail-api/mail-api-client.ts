import { MessagingError } from '../sms/sms-client.ts';

/** Sends transactional e-mail through an HTTP e-mail-send provider (`POST /v1/mail/send`, bearer key). */
export interface MailApiClient {
  send(mail: { to: string; subject: string; text: string }): Promise<{ id: string }>;
}

export function createMailApiClient(cfg: { baseUrl: string; apiKey: string; from: string; timeoutMs?: number }): MailApiClient {
  return {
    async send(mail) {
      let res: Response;
      try {
        res = await fetch(new URL('/v1/mail/send', cfg.baseUrl), {
          method: 'POST',
          headers: { authorization: `Bearer ${cfg.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ from: cfg.from, ...mail }),
          signal: AbortSignal.timeout(cfg.timeoutMs ?? 10_000),
        });
      } catch (e) {
        throw new MessagingError('mail-api', e instanceof Error ? e.message : String(e));
      }
      const body = (await res.json().catch(() => null)) as { id?: string } | null;
      if (res.status !== 202 || !body?.id) throw new MessagingError('mail-api', `answered ${res.status}`);
      return { id: body.id };
    },
  };
}
