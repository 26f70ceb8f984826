import { postWebhook } from './sim-server.ts';

/** One webhook event as a simulator sent it: attempts so far, whether one was answered 2xx, the last answer. */
export interface RetriedDelivery {
  attempts: number;
  delivered: boolean;
  result: { status: number } | { error: string };
}

/**
 * A provider's redelivery of a webhook answered non-2xx or not answered at all: the same body to the
 * same URL every `intervalMs`, until one attempt is answered 2xx or `maxAttempts` were made. The
 * simulators compress the interval in tests; `stop` forgets the attempts still planned.
 */
export function webhookRetries(intervalMs: number, maxAttempts: number) {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    /** Makes the first attempt (awaited: callers report its answer at once) and plans the others; `d` follows each. */
    async deliver(url: string, body: string, headers: Record<string, string>, d: RetriedDelivery): Promise<void> {
      const attempt = async () => {
        d.attempts += 1;
        d.result = await postWebhook(url, body, headers);
        d.delivered = 'status' in d.result && d.result.status >= 200 && d.result.status < 300;
        if (d.delivered || d.attempts >= maxAttempts) return;
        const t = setTimeout(() => {
          timers.delete(t);
          void attempt();
        }, intervalMs);
        timers.add(t);
      };
      await attempt();
    },
    stop(): void {
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
