// CPU time of each test file's process and of the processes it started and waited for (gateways,
// the CLI, a browser), read from /proc while the file runs. Linux only: elsewhere it reports nothing.
// The figure is as of the last sample before the process ended, so it may miss up to one sampling
// interval, and children the file never waited for.
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node runs on

/** utime + stime + cutime + cstime of a process, in ms; null when it is gone. */
function treeCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Children of `parent` whose command line names one of `paths`: Map path → pid. */
function findChildren(parent, paths) {
  const found = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.split(') ')[1].split(' ')[1]) !== parent) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const path = paths.find((p) => args.includes(p));
      if (path !== undefined) found.set(path, Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return found;
}

export class FileCpu {
  /** path → { pid, ms } */
  files = new Map();

  start(path) {
    this.files.set(path, { pid: null, ms: null });
  }

  /** Finds the processes of newly started files, then reads every known process's CPU time. */
  sample() {
    const unknown = [...this.files].filter(([, f]) => f.pid === null).map(([p]) => p);
    if (unknown.length > 0) for (const [path, pid] of findChildren(process.pid, unknown)) this.files.get(path).pid = pid;
    for (const f of this.files.values()) {
      if (f.pid === null) continue;
      const ms = treeCpuMs(f.pid);
      if (ms !== null) f.ms = ms;
    }
  }

  /** The file's CPU time (ms), or undefined when it was never seen; forgets the file. */
  end(path) {
    this.sample();
    const f = this.files.get(path);
    this.files.delete(path);
    return f?.ms ?? undefined;
  }
}
