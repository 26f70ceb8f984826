/** Structured JSON-lines logger on stderr; stdout stays free for command output (the seed's JSON). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function serialiseError(e: unknown): unknown {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack };
  return e;
}

export function createLogger(base: Record<string, unknown> = {}, min: LogLevel = (process.env.LOG_LEVEL as LogLevel) || 'info'): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[level] < (ORDER[min] ?? 20)) return;
    const rec: Record<string, unknown> = { t: new Date().toISOString(), level, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) rec[k] = k === 'err' ? serialiseError(v) : v;
    process.stderr.write(JSON.stringify(rec) + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (f) => createLogger({ ...base, ...f }, min),
  };
}
