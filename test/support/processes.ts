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

/** Started here and not yet ended: what stopStartedProcesses ends. */
const running = new Set<ChildProcess>();

/**
 * SIGKILLs every process started here that is still running. test/setup.ts calls it after each file,
 * so a test that failed or timed out before stopping its processes does not leave them serving.
 */
export function stopStartedProcesses(): void {
  for (const child of running) child.kill('SIGKILL');
}

function runNode(nodeArgs: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, nodeArgs, {
    cwd: REPO_ROOT,
    // Every test file shares one database: a worker process's outbox dispatcher would take the events
    // of other files' organisations (src/features/webhooks/delivery.test.ts runs its own dispatcher).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', WEBHOOK_DISPATCHER: 'off', ...env },
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
  running.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
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
