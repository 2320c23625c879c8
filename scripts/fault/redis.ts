/**
 * A redis-server of the fault run's own on a loopback port, without persistence, so that stopping it
 * never touches the machine's shared Redis. Stopping and starting again keeps the port, as a restarted
 * Redis would; what it held is gone, as after a restart without persistence.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { portOpen } from '../lib/temporalDevServer.js';

export interface OwnRedis {
  url: string;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops it if it is running. Safe to call twice. */
  destroy: () => Promise<void>;
  /** For a synchronous last resort at exit. */
  pid: () => number | undefined;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startOwnRedis(dir: string, port: number): Promise<OwnRedis> {
  const log = createWriteStream(path.join(dir, 'redis.log'), { flags: 'a' });
  let child: ChildProcess | undefined;
  const start = async () => {
    const server = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout.pipe(log, { end: false });
    server.stderr.pipe(log, { end: false });
    child = server;
    await until(async () => {
      if (server.exitCode !== null) throw new Error(`redis-server exited with code ${server.exitCode} (see ${dir}/redis.log)`);
      return portOpen(port);
    }, `redis-server not listening on ${port}`);
  };
  const stop = async () => {
    const server = child;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start, destroy: stop, pid: () => (child?.exitCode === null ? child.pid : undefined) };
}
