/** Helpers for the standalone simulator processes (dev and e2e). */
export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`simulator needs ${name}`);
    process.exit(1);
  }
  return v;
}

export function optionalMs(name: string): number | undefined {
  const v = process.env[name];
  if (!v) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) {
    console.error(`${name} must be a whole number of milliseconds, got ${v}`);
    process.exit(1);
  }
  return n;
}

export function portFrom(name: string): number {
  const port = Number(process.env[name] ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number, got ${process.env[name]}`);
    process.exit(1);
  }
  return port;
}

export function stopOnSignal(stop: () => Promise<void>): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void stop().then(() => process.exit(0)));
}
