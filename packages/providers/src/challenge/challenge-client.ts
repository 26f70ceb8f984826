/**
 * The bot-challenge service (siteverify protocol): `POST /siteverify` form `secret`, `response`,
 * optional `remoteip`; answers `{success, "error-codes"}`. `verify` is false on any failure to ask,
 * so an unreachable service refuses (spec 1 section 7: `CAPTCHA_INVALID`).
 */
export interface ChallengeClient {
  verify(response: string, remoteIp: string | null): Promise<boolean>;
}

export function createChallengeClient(cfg: { baseUrl: string; secret: string; timeoutMs?: number }): ChallengeClient {
  return {
    async verify(response, remoteIp) {
      const form = new URLSearchParams({ secret: cfg.secret, response });
      if (remoteIp) form.set('remoteip', remoteIp);
      try {
        const res = await fetch(new URL('/siteverify', cfg.baseUrl), { method: 'POST', body: form, signal: AbortSignal.timeout(cfg.timeoutMs ?? 5_000) });
        if (!res.ok) return false;
        const body = (await res.json()) as { success?: unknown };
        return body.success === true;
      } catch {
        return false;
      }
    },
  };
}
