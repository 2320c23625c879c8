/**
 * The processes the bench measures, each started as `npm start` starts the service (compiled
 * JavaScript under plain node), with its output in a log file so the bench never reads it on the hot
 * path. Every process started here is stopped by `stopAll`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../../test/support/processes.js';


export interface BenchProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Resident set size now, from /proc (Linux), in MB. */
  rssMb(): number;
  /** The highest resident set size since the process started (or since /proc/PID/clear_refs reset it), in MB. */
  peakRssMb(): number;
  /** User and system CPU time the process has used so far, all of its threads, from /proc (Linux), in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

const started: BenchProcess[] = [];

/**
 * User and system CPU time process `pid` has used so far, all of its threads, in ms: fields 14 and 15
 * of /proc/PID/stat (Linux), in clock ticks of 10 ms. The name in field 2 may hold spaces, so the
 * fields are counted from the parenthesis that closes it.
 */
export function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A memory figure of process `pid` from /proc/PID/status (Linux): `VmRSS` now, `VmHWM` its high-water mark; in MB. */
export function memoryMbOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
}

/** Runs compiled `script` (relative to the repository) with `env`, its output going to `logFile`. */
export function startCompiled(props: { name: string; script: string; args?: string[]; env: Record<string, string>; logFile: string }): BenchProcess {
  const fd = openSync(props.logFile, 'a');
  // BENCH_PROFILE=1: a CPU profile of each process, written when it exits (docs/bench.md).
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${path.join(REPO_ROOT, '.data/bench/profiles')}`, `--cpu-prof-name=${props.name.replace(/\W+/g, '-')}-${Date.now()}.cpuprofile`] : [];
  // BENCH_NODE_FLAGS: more flags for node in every process, e.g. `--perf-basic-prof` so that `perf`
  // names JIT frames, or `--inspect=0` for bench/allocations.ts (docs/bench.md).
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...profile, ...extra, path.join(REPO_ROOT, props.script), ...(props.args ?? [])], {
    cwd: REPO_ROOT,
    // BENCH_RUN marks every process of one run (bench/smoke.ts finds what a run left running by it).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(process.env.BENCH_RUN ? { BENCH_RUN: process.env.BENCH_RUN } : {}), ...props.env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc: BenchProcess = {
    name: props.name,
    child,
    logFile: props.logFile,
    rssMb: () => memoryMbOf(child.pid!, 'VmRSS'),
    peakRssMb: () => memoryMbOf(child.pid!, 'VmHWM'),
    cpuMs: () => cpuMsOf(child.pid!),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  started.push(proc);
  return proc;
}

/** Resolves with the first match of `pattern` in the process's log, failing if it exits or times out. */
export async function waitForLog(proc: BenchProcess, pattern: RegExp, timeoutMs = 90_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(proc.logFile, 'utf8').catch(() => '');
    const match = pattern.exec(text);
    if (match) return match;
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited ${proc.child.exitCode}:\n${text.slice(-4_000)}`);
    if (Date.now() > deadline) throw new Error(`${proc.name}: no ${pattern} within ${timeoutMs} ms:\n${text.slice(-4_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function stopAll(): Promise<void> {
  await Promise.all(started.splice(0).map((proc) => proc.stop()));
}
