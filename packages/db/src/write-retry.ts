/**
 * Spec 1 errors rule 6: concurrent write conflicts are retried, 3 attempts by default (5 on payment
 * capture), waiting 100 ms x 2^(attempt-1) plus 0-50 ms of jitter between attempts.
 */
const RETRYABLE_SQLSTATES = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

export function isWriteConflict(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_SQLSTATES.has(code);
}

/** Delay before retry number `attempt` (1-based: the wait after the first failure is attempt 1). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return 100 * 2 ** (attempt - 1) + Math.floor(random() * 51);
}

export interface RetryOptions {
  attempts?: number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (attempt: number, error: unknown) => void;
}

export const CAPTURE_ATTEMPTS = 5;

export async function withWriteRetry<T>(work: () => Promise<T>, opts: RetryOptions = {}): Promise<T> {
  const attempts = opts.attempts ?? 3;
  const sleep = opts.sleep ?? ((ms: number) => Bun.sleep(ms));
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (e) {
      if (!isWriteConflict(e) || attempt >= attempts) throw e;
      opts.onRetry?.(attempt, e);
      await sleep(retryDelayMs(attempt, opts.random));
    }
  }
}
