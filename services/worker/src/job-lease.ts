import type Redis from 'ioredis';

/**
 * A run's lease on its bee-queue job: while one run of a job holds it, no other run of that job starts.
 * bee-queue fails a run that outlives the job's timeout and starts the retry, but cannot stop the run
 * (it keeps going); without the lease both ran the handler side by side. The lease lasts `LEASE_MS` and
 * is renewed while the run goes on, so a run whose process died frees it within that time.
 */
export const LEASE_MS = 30_000;

/** Answers 2 when the job's done marker is set (ARGV[3] = '1' asks for the check), 1 when the lease was taken, 0 when another run holds it. */
const ACQUIRE = `if ARGV[3] == '1' and redis.call('EXISTS', KEYS[1]) == 1 then return 2 end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
/** Writes the done marker (ARGV[3] = '1') and frees the lease if still this run's, in one command. */
const FINISH = `if ARGV[3] == '1' then redis.call('SET', KEYS[1], '1', 'EX', ARGV[2]) end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1`;

/** Another run of the job still holds its lease (a run that timed out and goes on): retried later. */
export class JobStillRunningError extends Error {
  constructor(jobId: string) {
    super(`an earlier run of job ${jobId} is still running`);
    this.name = 'JobStillRunningError';
  }
}

export interface LeaseOptions {
  /** How long to wait for another run's lease before giving up with `JobStillRunningError`. */
  waitMs: number;
  leaseMs?: number;
  pollMs?: number;
  onLost?: () => void;
}

export class JobLease {
  private timer: ReturnType<typeof setInterval> | undefined;

  private constructor(
    private readonly redis: Redis,
    private readonly key: string,
    private readonly token: string,
    leaseMs: number,
    onLost: (() => void) | undefined,
  ) {
    this.timer = setInterval(() => {
      this.redis.eval(RENEW, 1, this.key, this.token, leaseMs).then(
        (r) => {
          if (r === 0) onLost?.();
        },
        () => {},
      );
    }, Math.max(10, Math.floor(leaseMs / 3)));
  }

  /**
   * Takes the lease `key`, waiting while another run holds it. With `doneKey`, answers 'done' instead
   * when the job's done marker is set (checked again after every wait: the run that held the lease may
   * have finished the job).
   */
  static async acquire(redis: Redis, key: string, doneKey: string | undefined, opts: LeaseOptions): Promise<JobLease | 'done'> {
    const leaseMs = opts.leaseMs ?? LEASE_MS;
    const token = crypto.randomUUID();
    const until = Date.now() + opts.waitMs;
    for (;;) {
      const r = await redis.eval(ACQUIRE, 2, doneKey ?? key, key, token, leaseMs, doneKey ? '1' : '0');
      if (r === 2) return 'done';
      if (r === 1) return new JobLease(redis, key, token, leaseMs, opts.onLost);
      if (Date.now() >= until) throw new JobStillRunningError(key.slice(key.lastIndexOf(':') + 1));
      await Bun.sleep(opts.pollMs ?? 100);
    }
  }

  /** Ends the run: writes the done marker (with `doneKey`, for `doneTtlS` seconds) and frees the lease. */
  async finish(doneKey?: string, doneTtlS = 0): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.redis.eval(FINISH, 2, doneKey ?? this.key, this.key, this.token, doneTtlS, doneKey ? '1' : '0');
  }
}
