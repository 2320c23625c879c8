import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** Runs one of our TypeScript entry points the way npm scripts do (through tsx). */
export function runTs(script: string, args: string[], env: Record<string, string>): RunningProcess {
  return runNode(['--import', 'tsx', path.join(REPO_ROOT, script), ...args], env);
}

/** Runs compiled JavaScript (`npm run build` output) the way `npm start` does. */
export function runCompiled(script: string, args: string[], env: Record<string, string>): RunningProcess {
  return runNode([path.join(REPO_ROOT, script), ...args], env);
}

function runNode(nodeArgs: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    waitForOutput: (pattern, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${output}`));
        }, timeoutMs);
        const check = () => {
          if (!pattern.test(output)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      }),
  };
}
