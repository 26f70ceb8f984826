/** Sends text messages through the SMS provider (`POST /v1/messages`, bearer API key; see its simulator). */
export interface SmsClient {
  send(to: string, text: string): Promise<{ id: string }>;
}

/** Thrown when a messaging provider refuses or cannot be reached; the message is for logs only. */
export class MessagingError extends Error {
  /** The provider's HTTP status when it answered (undefined: not reached). */
  constructor(readonly provider: 'sms' | 'mail-api', message: string, readonly status?: number) {
    super(`${provider}: ${message}`);
    this.name = 'MessagingError';
  }
}

export function createSmsClient(cfg: { baseUrl: string; apiKey: string; timeoutMs?: number }): SmsClient {
  return {
    async send(to, text) {
      let res: Response;
      try {
        res = await fetch(new URL('/v1/messages', cfg.baseUrl), {
          method: 'POST',
          headers: { authorization: `Bearer ${cfg.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ to, text }),
          signal: AbortSignal.timeout(cfg.timeoutMs ?? 10_000),
        });
      } catch (e) {
        throw new MessagingError('sms', e instanceof Error ? e.message : String(e));
      }
      const body = (await res.json().catch(() => null)) as { id?: string } | null;
      if (res.status !== 201 || !body?.id) throw new MessagingError('sms', `answered ${res.status}`, res.status);
      return { id: body.id };
    },
  };
}
