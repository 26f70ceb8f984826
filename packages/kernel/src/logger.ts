import pino, { type Logger as PinoLogger } from 'pino';

/**
 * Structured JSON-lines logs on stderr through pino (stdout stays free for command output, e.g. the
 * seed's JSON). Credentials never reach a log line: the keys below are replaced wherever they appear at
 * the top level or one level down (`err`, request headers, bodies logged as fields).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** Keys whose values are tokens, PINs, passwords or secrets. */
export const REDACTED_KEYS = [
  'authorization',
  'token',
  'access_token',
  'refresh_token',
  'staff_token',
  'approval_token',
  'activation_code',
  'pin',
  'pin_hash',
  'password',
  'password_hash',
  'secret',
  'shared_secret',
  'sharedSecret',
  'api_key',
  'apiKey',
  'x-client-api-key',
  'x-pos-staff-token',
  'cookie',
  'jwt',
  'JWT_SECRET',
  'DEVICE_API_KEY',
  'METRICS_TOKEN',
  'PIN_PEPPER',
  'FISCAL_MASTER_KEY',
  'FISCAL_SEAL_KEY',
  'FISCAL_SIGNING_KEYS',
  'FDM_REMOTE_SECRETS',
] as const;

const path = (k: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? k : `["${k}"]`);
const REDACT_PATHS = REDACTED_KEYS.flatMap((k) => [path(k), `*${path(k).startsWith('[') ? '' : '.'}${path(k)}`]);

function wrap(p: PinoLogger): Logger {
  return {
    debug: (m, f) => (f ? p.debug(f, m) : p.debug(m)),
    info: (m, f) => (f ? p.info(f, m) : p.info(m)),
    warn: (m, f) => (f ? p.warn(f, m) : p.warn(m)),
    error: (m, f) => (f ? p.error(f, m) : p.error(m)),
    child: (f) => wrap(p.child(f)),
  };
}

export function createLogger(base: Record<string, unknown> = {}, min: LogLevel = (process.env.LOG_LEVEL as LogLevel) || 'info'): Logger {
  const p = pino(
    {
      level: min,
      base,
      messageKey: 'msg',
      timestamp: () => `,"t":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    // Synchronous writes: a crash or process.exit never loses the last lines.
    pino.destination({ fd: 2, sync: true }),
  );
  return wrap(p);
}
