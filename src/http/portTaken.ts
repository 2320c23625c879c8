/**
 * A port another process holds (or one this user may not bind), said in one line that names the
 * variable that moves it, in place of Node's EADDRINUSE stack trace. Every role's entry point prints
 * its message alone (src/main.ts, scripts/dev.ts).
 */
export class PortTakenError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly variable: string,
    readonly code: 'EADDRINUSE' | 'EACCES' = 'EADDRINUSE',
  ) {
    super(
      code === 'EACCES'
        ? `${host}:${port} may not be bound by this user (${code}): set ${variable} to another port, above 1023`
        : `${host}:${port} is already in use by another process (${code}): set ${variable} to a free port, or stop what listens there`,
    );
    this.name = 'PortTakenError';
  }
}

/** The one line a role's entry point prints for a failed start it can explain without a stack trace. */
export function startFailureMessage(err: unknown, explained: (new (...args: never[]) => Error)[]): unknown {
  return err instanceof PortTakenError || explained.some((kind) => err instanceof kind) ? (err as Error).message : err;
}
