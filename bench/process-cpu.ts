// CPU time of a process, for the benches: how much CPU the gateway child process spent over a run,
// next to what this (the bench's own) process spent, so a figure like "ms of CPU per message" can
// be printed beside throughput and latency.
//
// Another process's CPU comes from /proc/<pid>/stat: utime + stime (fields 14 and 15, in clock
// ticks; all threads of the process, so the SQLite worker and libuv's pool count too) and, apart,
// cutime + cstime (16 and 17: children it has waited for, e.g. ffmpeg converting a voice note).
// Ticks per second come from `getconf CLK_TCK` (read once; 100 if that fails), so the resolution is
// 10 ms: runs of a few seconds are long enough. This process's CPU comes from process.cpuUsage().
// Linux only: elsewhere the readings are NaN and the figures print as "n/a".
//
// Usage (from a bench):
//   const mark = cpuMark(gw.child.pid);   … the run …   const cpu = cpuSince(mark);
//   console.log(formatCpuPer(cpu, messages, 'msg', 'simnet'));
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Clock ticks per second (`getconf CLK_TCK`), read once; 100 when it cannot be read. */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
      ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export interface ProcessCpu {
  /** utime + stime of the process (all its threads), in ms. */
  readonly ms: number;
  /** stime alone: the kernel's share (syscalls: writes, fsyncs, sockets). */
  readonly systemMs: number;
  /** cutime + cstime: its children that have exited and been waited for, in ms. */
  readonly childrenMs: number;
}

/** The CPU a process has used so far, from /proc/<pid>/stat (NaN when that cannot be read). */
export function readProcessCpu(pid: number): ProcessCpu {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return { ms: NaN, systemMs: NaN, childrenMs: NaN };
  }
  // Field 2 (the command name) is in parentheses and may hold spaces: count fields after its ')'.
  // The text after it starts at field 3, so field n is at index n - 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = (field: number): number => Number(fields[field - 3]);
  const msPerTick = 1000 / clockTicksPerSecond();
  return { ms: (ticks(14) + ticks(15)) * msPerTick, systemMs: ticks(15) * msPerTick, childrenMs: (ticks(16) + ticks(17)) * msPerTick };
}

/** A reading taken before a run: the measured process's CPU, this process's CPU and the time. */
export interface CpuMark {
  readonly pid: number;
  readonly target: ProcessCpu;
  readonly self: NodeJS.CpuUsage;
  readonly at: number;
}

/** What was spent between a mark and now. */
export interface CpuSpan {
  /** The measured process (e.g. the gateway), ms of CPU. */
  readonly targetMs: number;
  /** Of that, in the kernel on its behalf. */
  readonly targetSystemMs: number;
  /** Its waited-for children (e.g. ffmpeg), ms of CPU. */
  readonly targetChildrenMs: number;
  /** This process (the bench: simnet, a webhook receiver, autocannon…), ms of CPU. */
  readonly selfMs: number;
  readonly wallMs: number;
}

export function cpuMark(pid: number | undefined): CpuMark {
  if (pid === undefined) throw new Error('cpuMark: the process has no pid (it never started)');
  return { pid, target: readProcessCpu(pid), self: process.cpuUsage(), at: performance.now() };
}

/** CPU spent since `mark`. Read before the measured process exits: /proc forgets it after. */
export function cpuSince(mark: CpuMark): CpuSpan {
  const target = readProcessCpu(mark.pid);
  const self = process.cpuUsage(mark.self);
  return {
    targetMs: target.ms - mark.target.ms,
    targetSystemMs: target.systemMs - mark.target.systemMs,
    targetChildrenMs: target.childrenMs - mark.target.childrenMs,
    selfMs: (self.user + self.system) / 1000,
    wallMs: performance.now() - mark.at,
  };
}

/** Adds spans of several runs (e.g. the rounds of one target). */
export function addSpans(spans: readonly CpuSpan[]): CpuSpan {
  return spans.reduce<CpuSpan>(
    (a, s) => ({
      targetMs: a.targetMs + s.targetMs,
      targetSystemMs: a.targetSystemMs + s.targetSystemMs,
      targetChildrenMs: a.targetChildrenMs + s.targetChildrenMs,
      selfMs: a.selfMs + s.selfMs,
      wallMs: a.wallMs + s.wallMs,
    }),
    { targetMs: 0, targetSystemMs: 0, targetChildrenMs: 0, selfMs: 0, wallMs: 0 },
  );
}

/** ms of CPU per unit, three decimals ("n/a" when unknown or nothing was counted). */
export function msPer(ms: number, count: number): string {
  return Number.isFinite(ms) && count > 0 ? (ms / count).toFixed(3) : 'n/a';
}

/** Cores kept busy on average over the span: CPU time / wall time. */
export function cores(ms: number, wallMs: number): string {
  return Number.isFinite(ms) && wallMs > 0 ? (ms / wallMs).toFixed(2) : 'n/a';
}

/**
 * "gateway 0.812 ms CPU/msg (0.200 of it in the kernel; 1.31 cores), simnet 0.420 ms CPU/msg (0.68 cores)"; the children's
 * share is added only when there was one ("+ 2.1 ms/msg in child processes").
 */
export function formatCpuPer(span: CpuSpan, count: number, unit: string, selfLabel: string, targetLabel = 'gateway'): string {
  const children = span.targetChildrenMs > 0 ? ` + ${msPer(span.targetChildrenMs, count)} ms/${unit} in its child processes` : '';
  return (
    `${targetLabel} ${msPer(span.targetMs, count)} ms CPU/${unit} (${msPer(span.targetSystemMs, count)} of it in the kernel; ${cores(span.targetMs, span.wallMs)} cores)${children}, ` +
    `${selfLabel} ${msPer(span.selfMs, count)} ms CPU/${unit} (${cores(span.selfMs, span.wallMs)} cores)`
  );
}
