import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (ms, user + system) of the machine's processes whose command name starts with `name`
 * (`postgres`, `redis-server`) and, with `title`, whose command line holds it (a PostgreSQL backend's
 * title names its database), read from /proc; null where there is none (not Linux). On a machine
 * whose cores are shared with other work, CPU time per unit of work varies far less than wall time,
 * so it tells which process a change made cheaper. A process that exits between two readings takes
 * its time with it: read while the connections of interest are still open.
 */
export function processCpuMs(name: string, title?: string): number | null {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc');
  } catch {
    return null;
  }
  let ticks = 0;
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (!stat.slice(open + 1, close).startsWith(name)) continue;
    if (title !== undefined) {
      try {
        if (!readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(title)) continue;
      } catch {
        continue;
      }
    }
    // Fields after the command: state is field 3, utime 14 and stime 15 (1-based, proc(5)).
    const f = stat.slice(close + 2).split(' ');
    ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** This process's CPU time in ms (user + system). */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
