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

/**
 * The id of a queued job: `J` and its sequence number. Handed to a poll it carries the attempt too
 * (`J<seq>.<attempt>`), so a late report of an earlier hand-out is told apart from the current one.
 */
export const printJobIdOf = (seq: string | number | bigint, attempt?: number): string => (attempt === undefined ? `J${seq}` : `J${seq}.${attempt}`);
/** The sequence number and, when given, the attempt a job id names; null when it names no job. */
export function readPrintJobId(id: string): { seq: string; attempt: number | null } | null {
  const m = /^J([1-9][0-9]{0,17})(?:\.([1-9][0-9]{0,8}))?$/.exec(id);
  return m ? { seq: m[1]!, attempt: m[2] === undefined ? null : Number(m[2]) } : null;
}
export function seqOfPrintJobId(id: string): string | null {
  return readPrintJobId(id)?.seq ?? null;
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /^[A-Za-z0-9_]$/.test(c);

/**
 * The value of the last `name="value"` attribute (name preceded by a non-word character, value all
 * `allowed`, at most `max` characters) in `xml[from, to)`; undefined when there is none. One pass.
 */
function lastAttribute(xml: string, from: number, to: number, name: string, allowed: RegExp, max: number): string | undefined {
  const lead = `${name}="`;
  let found: string | undefined;
  for (let i = xml.indexOf(lead, from); i !== -1 && i < to; i = xml.indexOf(lead, i + 1)) {
    if (isWordChar(xml[i - 1])) continue;
    const start = i + lead.length;
    const window = xml.slice(start, Math.min(to, start + max + 1));
    const quote = window.indexOf('"');
    if (quote === -1) continue;
    const value = window.slice(0, quote);
    if (allowed.test(value)) found = value;
  }
  return found;
}

/**
 * The first `<response ...>` tag (up to its `>`, or the end) holding a valid `name="..."` attribute,
 * and that attribute's value (the last one in the tag). Linear in the input: tags without a `>` of
 * their own share the next one, and a tag span already searched in vain is not searched again (the
 * former regex `<response\b[^>]*\bname="..."` backtracked quadratically on repeated `<response`).
 */
function responseAttribute(xml: string, name: string, allowed: RegExp, max: number): string | undefined {
  const open = '<response';
  let searchedEnd = -1;
  for (let s = xml.indexOf(open); s !== -1; s = xml.indexOf(open, s + 1)) {
    const after = s + open.length;
    if (isWordChar(xml[after])) continue;
    const gt = xml.indexOf('>', after);
    const end = gt === -1 ? xml.length : gt;
    if (end === searchedEnd) continue; // same span as a tag before it, already without a match
    searchedEnd = end;
    const value = lastAttribute(xml, after, end, name, allowed, max);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The result report of a printer (`ResponseFile`): job id, success and code. Linear time on any input. */
export function readResponseFile(xml: string): { printjobid?: string; success?: boolean; code?: string } {
  const out: { printjobid?: string; success?: boolean; code?: string } = {};
  const job = /<printjobid>([A-Za-z0-9_.-]{1,30})<\/printjobid>/.exec(xml)?.[1];
  if (job !== undefined) out.printjobid = job;
  const success = responseAttribute(xml, 'success', /^(?:true|false)$/, 5);
  if (success !== undefined) out.success = success === 'true';
  const code = responseAttribute(xml, 'code', /^[A-Za-z_]*$/, 40);
  if (code) out.code = code;
  return out;
}

const MAC = /^([0-9A-Fa-f]{2})([:-])([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})\2([0-9A-Fa-f]{2})$/;
/** MAC address format: six hex pairs separated by `:` or `-` (one kind). */
export const isMac = (s: string): boolean => MAC.test(s);
/** One printer record per MAC: compared upper case with colons. */
export const normaliseMac = (s: string): string => s.toUpperCase().replace(/-/g, ':');
/**
 * A MAC that names no device: all zeros (what a stack reports before it knows the address) or the
 * broadcast address. Firmware and discovery probes that fail fill these in, and every such printer
 * would otherwise become one shared record per merchant (one MAC, one printer).
 */
export const isPlaceholderMac = (s: string): boolean => {
  const mac = normaliseMac(s);
  return mac === '00:00:00:00:00:00' || mac === 'FF:FF:FF:FF:FF:FF';
};
