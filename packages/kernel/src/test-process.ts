/**
 * Test-only: how tests start a `bun` process with exactly the environment they give it. Bun loads
 * `.env` files from the working directory by default (the one `bun run dev` writes, say), which
 * would leak secrets into a process a test starts with an empty environment; `--no-env-file` stops it.
 */
export const BUN = ['bun', '--no-env-file'] as const;

/** The least a process needs to start: where `bun` is and a home directory, nothing else. */
export function bareEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' };
}
