/**
 * The api and the worker as separate processes (`src/main.ts --role …` through tsx, as the tests run
 * them). The fault run SIGKILLs them on purpose; a process that ends on its own is a crash: it is
 * recorded, and started again as a supervisor (Compose's `restart`, Kubernetes) would.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runTs, type RunningProcess } from '../../test/support/processes.js';

export type Role = 'api' | 'worker';

export interface Crash {
  role: Role;
  /** ms since the epoch */
  at: number;
  /** The last error line the process printed. */
  reason: string;
}

const READY: Record<Role, RegExp> = { api: /"msg":"api listening"/, worker: /"msg":"worker polling"/ };

/** The error a process died of: the line Node prints under an uncaught error's source line, else the last `…Error: …` line. */
function lastError(output: string): string {
  const caret = [...output.matchAll(/\n\s*\^\s*\n/g)].at(-1);
  const printed = caret ? /^\S.*$/m.exec(output.slice(caret.index + caret[0].length))?.[0] : undefined;
  const line = printed ?? [...output.matchAll(/^\s*(\w*Error\b.*)$/gm)].at(-1)?.[1] ?? `no error printed; last output: ${output.slice(-200)}`;
  return line.slice(0, 200);
}

export function serviceProcesses(props: { env: Record<string, string>; roleEnv?: Partial<Record<Role, Record<string, string>>>; logDir: string; log: (line: string) => void }) {
  const all: { role: Role; proc: RunningProcess }[] = [];
  const running: Partial<Record<Role, RunningProcess>> = {};
  const killed = new Set<RunningProcess>();
  const crashes: Crash[] = [];
  /** From each SIGKILL of the api until its successor listened, in ms since the epoch. */
  const apiDown: { from: number; to: number }[] = [];
  let stopping = false;

  const start = async (role: Role): Promise<void> => {
    const proc = runTs('src/main.ts', ['--role', role], { ...props.env, ...(role === 'api' ? {} : { PORT: '0' }), ...props.roleEnv?.[role] });
    all.push({ role, proc });
    running[role] = proc;
    void proc.exited.then(() => {
      if (killed.has(proc) || stopping) return;
      const crash = { role, at: Date.now(), reason: lastError(proc.output()) };
      crashes.push(crash);
      props.log(`${role} crashed: ${crash.reason}; starting another`);
      void start(role).catch((err: unknown) => props.log(`${role} did not start again: ${String(err)}`));
    });
    await proc.waitForOutput(READY[role], 120_000);
  };

  return {
    crashes,
    apiDown,
    start,
    /** SIGKILLs the role's process and starts another; resolves with the ms until the new one served. */
    async killAndRestart(role: Role): Promise<number> {
      const victim = running[role]!;
      const from = Date.now();
      killed.add(victim);
      victim.child.kill('SIGKILL');
      await victim.exited;
      await start(role);
      if (role === 'api') apiDown.push({ from, to: Date.now() });
      return Date.now() - from;
    },
    killAll(): void {
      stopping = true;
      for (const { proc } of all) if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    },
    async stopAll(): Promise<void> {
      this.killAll();
      await Promise.all(all.map(({ proc }) => proc.exited));
      all.forEach(({ role, proc }, i) => writeFileSync(path.join(props.logDir, `${role}-${i + 1}.log`), proc.output()));
    },
  };
}
