import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './processes.js';

/** The command line as a user's shell runs it: the package's bin, through Node. */
export const CLI_BIN = path.join(REPO_ROOT, 'cli/bin/domain-service.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  /** Everything it printed so far, both streams. */
  output(): string;
  stdout(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  signal(name: NodeJS.Signals): void;
  done: Promise<CliResult>;
}

/**
 * A person's (or a CI job's) machine for the command line: its own config directory (XDG_CONFIG_HOME)
 * and environment, nothing inherited from the test process but PATH and HOME's absence.
 */
export interface CliUser {
  configDir: string;
  env: Record<string, string>;
  start(args: string[], env?: Record<string, string>): RunningCli;
  run(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** Ends the processes still running and removes the user's files. */
  remove(): Promise<void>;
}

export async function cliUser(env: Record<string, string> = {}): Promise<CliUser> {
  const home = await mkdtemp(path.join(os.tmpdir(), 'cli-user-'));
  const configDir = path.join(home, '.config');
  const base = { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: configDir, ...env };
  const running = new Set<ReturnType<typeof spawn>>();
  const start = (args: string[], extra: Record<string, string> = {}): RunningCli => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: home, env: { ...base, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    child.once('exit', () => running.delete(child));
    let stdout = '';
    let stderr = '';
    const waiters = new Set<() => void>();
    const collect = (stream: 'out' | 'err') => (chunk: Buffer) => {
      if (stream === 'out') stdout += chunk.toString();
      else stderr += chunk.toString();
      for (const check of waiters) check();
    };
    child.stdout.on('data', collect('out'));
    child.stderr.on('data', collect('err'));
    const done = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
    return {
      output: () => stdout + stderr,
      stdout: () => stdout,
      signal: (name) => child.kill(name),
      done,
      waitFor: (pattern, timeoutMs = 20_000) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            waiters.delete(check);
            reject(new Error(`domain-service ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms; printed:\n${stdout}${stderr}`));
          }, timeoutMs);
          const check = () => {
            const match = pattern.exec(stdout + stderr);
            if (!match) return;
            clearTimeout(timer);
            waiters.delete(check);
            resolve(match);
          };
          waiters.add(check);
          check();
        }),
    };
  };
  return {
    configDir,
    env: base,
    start,
    run: (args, extra) => start(args, extra).done,
    remove: async () => {
      // A test that failed half-way may leave one running (a `webhooks listen`): it ends with the user.
      for (const child of running) child.kill('SIGTERM');
      await rm(home, { recursive: true, force: true });
    },
  };
}
