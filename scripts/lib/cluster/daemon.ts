/**
 * One server process of the cluster (etcd, Patroni, HAProxy, redis-server, a Sentinel, a Temporal
 * server, the Web UI), its output appended to a log file: started, SIGKILLed by the fault run, started
 * again with the same arguments, and stopped at the end. Only processes it started are ever signalled.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { portOpen } from '../temporalDevServer.js';

export interface Daemon {
  name: string;
  pid(): number | undefined;
  running(): boolean;
  start(): Promise<void>;
  /** SIGKILL, as when the machine under it dies; resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface DaemonProps {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  /** Ready once this resolves true (polled); default: the process is running. */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
  cwd?: string;
}

export async function until(check: () => Promise<boolean>, what: string, timeoutMs: number, intervalMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export const listening = (port: number) => () => portOpen(port);

/** The URL answers 200 (connection errors are a no). */
export async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export function daemon(props: DaemonProps): Daemon {
  const log = createWriteStream(props.logFile, { flags: 'a' });
  let child: ChildProcess | undefined;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const start = async () => {
    if (running()) return;
    const started = spawn(props.command, props.args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: props.cwd });
    started.stdout.pipe(log, { end: false });
    started.stderr.pipe(log, { end: false });
    started.once('error', (err) => log.write(`${props.name}: ${err.message}\n`));
    child = started;
    await until(
      async () => {
        if (!running()) throw new Error(`${props.name} exited (${started.exitCode ?? started.signalCode}); see ${props.logFile}`);
        return props.ready ? props.ready() : true;
      },
      `${props.name} not ready`,
      props.readyTimeoutMs ?? 30_000,
    );
  };
  const signal = async (sig: NodeJS.Signals) => {
    const current = child;
    if (!current || !running()) return;
    current.kill(sig);
    await exited(current);
  };
  return {
    name: props.name,
    pid: () => (running() ? child?.pid : undefined),
    running,
    start,
    kill: () => signal('SIGKILL'),
    stop: async (graceMs = 10_000) => {
      const current = child;
      if (!current || !running()) return;
      const timer = setTimeout(() => current.kill('SIGKILL'), graceMs);
      await signal('SIGTERM');
      clearTimeout(timer);
    },
  };
}
