import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { Io } from './io.js';
import { Session, type GlobalOptions } from './session.js';
import { EXIT, type ExitName } from './exitCodes.js';

/** What a command runs with: where it writes, what it acts as, and Ctrl-C as an abort signal. */
export interface Context {
  io: Io;
  globals: GlobalOptions;
  /** Opened on first use: a command that calls nothing needs no credential. */
  session: () => Promise<Session>;
  /** Aborted by the first Ctrl-C (or SIGTERM), so a wait stops and tidies its progress line. */
  signal: AbortSignal;
  /** How the command ends when it returns normally (an operation that failed, say). */
  exit: (name: ExitName) => void;
}

const interrupt = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second Ctrl-C while the first is being handled ends at once.
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted.code);
    interrupt.abort(new InterruptedError(signal));
  });
}

export class InterruptedError extends Error {
  constructor(readonly signal: string) {
    super(`Interrupted (${signal})`);
    this.name = 'InterruptedError';
  }
}

/** The root options, wherever on the line they were given. */
export function globalsOf(command: CommandUnknownOpts): GlobalOptions {
  return command.optsWithGlobals();
}

export function contextOf(command: CommandUnknownOpts): Context {
  const globals = globalsOf(command);
  let session: Promise<Session> | undefined;
  return {
    io: new Io(globals.json === true),
    globals,
    session: () => (session ??= Session.open(globals)),
    signal: interrupt.signal,
    exit: (name) => {
      process.exitCode = EXIT[name].code;
    },
  };
}
