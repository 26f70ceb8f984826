import { isIP } from 'node:net';
import { Value } from '@sinclair/typebox/value';
import { errors } from '@pos/kernel';
import { isPlaceholderMac } from '@pos/domain/printing/printer-rules';
import { fieldErrorsFrom } from '../../plugins/errors.ts';
import { DISCOVERY_KEYS, DiscoveryBody, INVALID_IP_MESSAGE, PLACEHOLDER_MAC_MESSAGE } from './printers.schemas.ts';

interface Issue {
  path: string;
  value: unknown;
  schema: { error?: unknown };
}

/** As many issues as Elysia lists for one failed schema. */
const MAX_ISSUES = 64;

/**
 * The checks the schema cannot say with its one message per field: a well-formed mac that is a
 * placeholder (its own message), an ip that is no IPv4 or IPv6 address. Read on the raw body, so any
 * shape is tolerated; in entry order, mac before ip.
 */
function entryIssues(body: unknown): Issue[] {
  const printers = (body as { printers?: unknown } | null)?.printers;
  if (!Array.isArray(printers)) return [];
  const out: Issue[] = [];
  // At most as many as a 422 lists: a body of a thousand bad entries (the request guard's bound) is not
  // checked, and merged, entry by entry (quadratic work before the schema's 16-entry limit answers).
  for (let i = 0; i < printers.length && out.length < MAX_ISSUES; i++) {
    const p: unknown = printers[i];
    if (typeof p !== 'object' || p === null) continue;
    const { mac, ip } = p as { mac?: unknown; ip?: unknown };
    if (typeof mac === 'string' && isPlaceholderMac(mac)) out.push({ path: `/printers/${i}/mac`, value: mac, schema: { error: PLACEHOLDER_MAC_MESSAGE } });
    if (typeof ip === 'string' && isIP(ip) === 0) out.push({ path: `/printers/${i}/ip`, value: ip, schema: { error: INVALID_IP_MESSAGE } });
  }
  return out;
}

/** Entry index and key rank (DISCOVERY_KEYS order, -1 for another key or the entry itself) of `/printers/N/key`. */
function placeOf(path: string): { entry: number; rank: number } | null {
  const m = /^\/printers\/(\d+)(?:\/(.*))?$/.exec(path);
  return m ? { entry: Number(m[1]), rank: DISCOVERY_KEYS.indexOf(m[2] as (typeof DISCOVERY_KEYS)[number]) } : null;
}

/**
 * The schema's issues (TypeBox order: the body, the array, then entry by entry: unknown keys, then
 * the keys in schema order) with each entry check put where the schema would have listed it.
 */
function merged(schemaIssues: Issue[], checks: Issue[]): Issue[] {
  const out = [...schemaIssues];
  for (const c of checks) {
    const at = placeOf(c.path)!;
    const next = out.findIndex((s) => {
      const p = placeOf(s.path);
      return p !== null && (p.entry > at.entry || (p.entry === at.entry && p.rank > at.rank));
    });
    out.splice(next === -1 ? out.length : next, 0, c);
  }
  return out.slice(0, MAX_ISSUES);
}

/**
 * Route transform (runs before Elysia validates the body): when an entry check fails, one 422 with
 * every failing field, the schema's and these together (CONTRACTS 3); checked after the schema
 * instead, a body with any schema error was answered without them. Otherwise the schema answers alone.
 */
export function discoveryEntryChecks({ body }: { body: unknown }): void {
  const checks = entryIssues(body);
  if (!checks.length) return;
  const schemaIssues: Issue[] = [];
  for (const e of Value.Errors(DiscoveryBody, body)) {
    if (schemaIssues.length === MAX_ISSUES) break;
    schemaIssues.push(e);
  }
  throw errors.validation(fieldErrorsFrom(merged(schemaIssues, checks), 'body'));
}
