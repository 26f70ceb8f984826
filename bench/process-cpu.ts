import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (ms, user + system) of the machine's processes whose command name starts with `name`
 * (`redis-server`; PostgreSQL backends: `postgresCpuMs`), read from /proc; null where there is none
 * (not Linux). On a machine whose cores are shared with other work, CPU time per unit of work
 * varies far less than wall time, so it tells which process a change made cheaper. A process that
 * exits between two readings takes its time with it: read while the processes of interest still run.
 */
export function processCpuMs(name: string): number | null {
  const procs = processStats();
  if (!procs) return null;
  let ticks = 0;
  for (const p of procs) if (p.comm.startsWith(name)) ticks += p.utime + p.stime;
  return ticks * MS_PER_TICK;
}

/** USER_HZ is 100 on Linux: /proc counts CPU time in hundredths of a second. */
const MS_PER_TICK = 10;

interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  utime: number;
  stime: number;
  /** Time of the children it has waited for (exited). */
  cutime: number;
  cstime: number;
  cmdline: () => string;
}

/** Every process's /proc/<pid>/stat (fields per proc(5)); null where there is no /proc. */
function processStats(): ProcStat[] | null {
  let dirs: string[];
  try {
    dirs = readdirSync('/proc');
  } catch {
    return null;
  }
  const out: ProcStat[] = [];
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const close = stat.lastIndexOf(')');
    // Fields after the command: state is field 3, ppid 4, utime 14, stime 15, cutime 16, cstime 17 (1-based).
    const f = stat.slice(close + 2).split(' ');
    out.push({
      pid: Number(d),
      ppid: Number(f[1]),
      comm: stat.slice(stat.indexOf('(') + 1, close),
      utime: Number(f[11]),
      stime: Number(f[12]),
      cutime: Number(f[13]),
      cstime: Number(f[14]),
      cmdline: () => {
        try {
          return readFileSync(`/proc/${d}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      },
    });
  }
  return out;
}

/**
 * CPU time (ms) of the PostgreSQL backends serving `database`, plus the time of every backend that
 * has exited (the postmaster counts its reaped children): a pool backend that closes during a
 * measurement keeps its time in the sum instead of taking it away (per-round figures went negative).
 * Exited backends of other databases count too, so read it while nothing else uses the server.
 */
export function postgresCpuMs(database: string): number | null {
  const procs = processStats();
  if (!procs) return null;
  const pids = new Set(procs.filter((p) => p.comm.startsWith('postgres')).map((p) => p.pid));
  let ticks = 0;
  for (const p of procs) {
    if (!pids.has(p.pid)) continue;
    if (!pids.has(p.ppid)) ticks += p.cutime + p.cstime; // the postmaster
    else if (p.cmdline().includes(` ${database} `)) ticks += p.utime + p.stime;
  }
  return ticks * MS_PER_TICK;
}

/**
 * CPU time (ms) the whole machine spent, all cores and processes, kernel included (everything in
 * /proc/stat's first line but idle and I/O wait). Per unit of work it is the figure that decides a
 * throughput bound by the cores, and unlike per-process sums it misses nothing (walwriter, softirq
 * of loopback sockets, helper threads).
 */
export function machineBusyMs(): number | null {
  let line: string;
  try {
    line = readFileSync('/proc/stat', 'utf8').slice(0, 200).split('\n')[0]!;
  } catch {
    return null;
  }
  const t = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal ...: steal is the host running others, not us.
  const busy = t[0]! + t[1]! + t[2]! + t[5]! + t[6]!;
  return busy * MS_PER_TICK;
}

/** This process's CPU time in ms (user + system). */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU time (ms) of one process, by pid (a PostgreSQL backend: `select pg_backend_pid()`); null where it cannot be read. */
export function pidCpuMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * MS_PER_TICK;
  } catch {
    return null;
  }
}
