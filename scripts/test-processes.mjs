// The processes of each running test file, read from /proc (Linux only: elsewhere it sees nothing):
// - its CPU time, with the processes it started and waited for (gateways, the CLI, a browser), as of
//   the last sample before it ended (so it may miss up to one sampling interval);
// - the processes it started that outlive it. A file that times out or crashes leaves its gateways
//   (or its own PostgreSQL, or a browser) running: they would hold ports and eat the CPU the files
//   after it need, so they are killed when the file ends, and named in the summary.
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node runs on
/** How long a file's processes get to end on their own after it (a gateway's graceful stop, tsx's esbuild service). */
const GRACE_MS = 2_000;

/** pid → { ppid, start, cpuMs } for every process, from /proc/<pid>/stat. */
function processTable() {
  const table = new Map();
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After the parenthesised command name: state ppid … utime(12) stime(13) cutime(14) cstime(15) … starttime(20)
      const f = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      const cpuMs = ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND;
      table.set(Number(entry), { ppid: Number(f[1]), start: f[19], cpuMs });
    } catch {
      // the process ended meanwhile
    }
  }
  return table;
}

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return null;
  }
}

export class FileProcesses {
  /** path → { pid, start, cpuMs, descendants: Map pid → start } */
  files = new Map();

  start(path) {
    this.files.set(path, { pid: null, start: null, cpuMs: null, descendants: new Map() });
  }

  /** Finds the processes of newly started files, reads each file's CPU time, records their descendants. */
  sample() {
    if (this.files.size === 0) return;
    const table = processTable();
    const children = new Map();
    for (const [pid, p] of table) {
      if (!children.has(p.ppid)) children.set(p.ppid, []);
      children.get(p.ppid).push(pid);
    }
    for (const [path, f] of this.files) {
      if (f.pid === null) {
        const pid = (children.get(process.pid) ?? []).find((c) => commandLine(c)?.split(' ').includes(path));
        if (pid === undefined) continue;
        f.pid = pid;
        f.start = table.get(pid).start;
      }
      const own = table.get(f.pid);
      if (own === undefined || own.start !== f.start) continue;
      f.cpuMs = own.cpuMs;
      const stack = [...(children.get(f.pid) ?? [])];
      while (stack.length > 0) {
        const pid = stack.pop();
        f.descendants.set(pid, table.get(pid).start);
        stack.push(...(children.get(pid) ?? []));
      }
    }
  }

  /**
   * The file ended: its CPU time (ms, undefined when never seen) and the command lines of the
   * processes it started that still run GRACE_MS later, which are killed. Forgets the file.
   */
  async end(path) {
    this.sample();
    const f = this.files.get(path);
    this.files.delete(path);
    if (f === undefined) return { cpuMs: undefined, leftBehind: [] };
    if (f.descendants.size > 0) await sleep(GRACE_MS);
    const table = processTable();
    const leftBehind = [];
    for (const [pid, start] of f.descendants) {
      // The same pid and start time: that very process, not a later one given its pid.
      if (table.get(pid)?.start !== start) continue;
      const command = commandLine(pid) ?? `pid ${pid}`;
      try {
        process.kill(pid, 'SIGKILL');
        leftBehind.push(command);
      } catch {
        // it ended meanwhile
      }
    }
    return { cpuMs: f.cpuMs ?? undefined, leftBehind };
  }
}
