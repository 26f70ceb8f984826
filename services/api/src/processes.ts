/**
 * `API_PROCESSES=N`: the first process starts N-1 more of itself; all listen on API_PORT with
 * `reusePort`, so the kernel spreads connections over them and every core serves requests. Each process
 * has its own pools, caches and metrics; the auth cache stays coherent through Redis pub/sub.
 * A child that exits is not restarted here (the process manager restarts the whole group).
 */
export function startSiblings(count: number, log: { info: (m: string, f?: Record<string, unknown>) => void }): { stop: () => Promise<void> } {
  if (process.env.API_PROCESS_INDEX !== undefined || count <= 1) return { stop: async () => {} };
  const children = Array.from({ length: count - 1 }, (_, i) =>
    Bun.spawn([process.execPath, ...process.argv.slice(1)], {
      env: { ...process.env, API_PROCESS_INDEX: String(i + 1) },
      stdout: 'inherit',
      stderr: 'inherit',
    }),
  );
  log.info('api processes started', { processes: count, pids: children.map((c) => c.pid) });
  return {
    stop: async () => {
      for (const c of children) c.kill('SIGTERM');
      await Promise.all(children.map((c) => c.exited));
    },
  };
}
