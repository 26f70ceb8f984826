/**
 * Printer rules with no I/O (issue 15 points 5 and 7).
 */

/** Failure codes a printer recovers from by itself (cover closed, paper loaded, a time-out): the job is offered again. */
export const RECOVERABLE_CODES: ReadonlySet<string> = new Set(['EPTR_COVER_OPEN', 'EPTR_REC_EMPTY', 'EX_TIMEOUT', 'Printing']);

export type PrintOutcome = 'printed' | 'retry' | 'failed';

/** What a result report means for its job. */
export function outcomeOf(success: boolean, code: string | undefined): PrintOutcome {
  if (success) return 'printed';
  return code !== undefined && RECOVERABLE_CODES.has(code) ? 'retry' : 'failed';
}

/** A printer silent for 2 x its poll interval + 5 s is offline (PROTOCOLS "printer-a"). */
export function offlineAfterMs(pollIntervalSeconds: number): number {
  return (2 * pollIntervalSeconds + 5) * 1000;
}

export function isPrinterOnline(lastPollAt: Date | null, pollIntervalSeconds: number, now: Date): boolean {
  return lastPollAt !== null && now.getTime() - lastPollAt.getTime() <= offlineAfterMs(pollIntervalSeconds);
}

/** The printer-visible job id of a queued job: `J` and its sequence number. */
export const printJobIdOf = (seq: string | number | bigint): string => `J${seq}`;
export function seqOfPrintJobId(id: string): string | null {
  const m = /^J([1-9][0-9]{0,17})$/.exec(id);
  return m ? m[1]! : null;
}

/** The result report of a printer (`ResponseFile`): job id, success and code. */
export function readResponseFile(xml: string): { printjobid?: string; success?: boolean; code?: string } {
  const out: { printjobid?: string; success?: boolean; code?: string } = {};
  const job = /<printjobid>([A-Za-z0-9_.-]{1,30})<\/printjobid>/.exec(xml)?.[1];
  if (job !== undefined) out.printjobid = job;
  const success = /<response\b[^>]*\bsuccess="(true|false)"/.exec(xml)?.[1];
  if (success !== undefined) out.success = success === 'true';
  const code = /<response\b[^>]*\bcode="([A-Za-z_]{0,40})"/.exec(xml)?.[1];
  if (code) out.code = code;
  return out;
}

const MAC = /^([0-9A-Fa-f]{2})([:-])([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})$/;
/** MAC address format: six hex pairs separated by `:` or `-` (one kind). */
export const isMac = (s: string): boolean => MAC.test(s);
/** One printer record per MAC: compared upper case with colons. */
export const normaliseMac = (s: string): string => s.toUpperCase().replace(/-/g, ':');
