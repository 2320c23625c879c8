/**
 * Failures of the connection to PostgreSQL rather than of a statement: refused, reset, timed out,
 * pool exhausted, server shutting down. They mean "the database is away, retry", so the API answers
 * them with 503 and Temporal retries activities that meet them.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);

/**
 * node-postgres gives the failures it raises itself no code, only a message; these are its wordings
 * (pool checkout timeout, socket ended, client unusable after a failure, query read timeout). They are
 * only matched on errors that came out of our own pool (`pool.ts`), never on arbitrary errors.
 */
const DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Query read timeout|Cannot use a pool after calling end/;

/**
 * SQLSTATE classes and codes that say the server cannot serve us now (https://www.postgresql.org/docs/15/errcodes-appendix.html).
 * 25006 (a write refused in a read-only transaction) is a standby reached during a failover: the front
 * (HAProxy, docs/operations.md, Production topology) can send a connection to the node being promoted
 * a moment before it accepts writes. Our statements never write inside a transaction opened read-only.
 */
export function isUnavailableSqlState(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '53000' || code === '25006';
}

export function isConnectionFailure(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || ('severity' in err && isUnavailableSqlState(code)))) return true;
  if (err instanceof AggregateError) return err.errors.some(isConnectionFailure);
  return typeof code !== 'string' && DRIVER_MESSAGES.test(err.message);
}

/**
 * A connection-level failure of PostgreSQL, as thrown by the pool. Deliberately not an ApiError:
 * activities must see it as retryable, and the HTTP error handler maps it to 503 (`pgErrors.ts`).
 */
export class DatabaseConnectionError extends Error {
  constructor(cause: unknown) {
    super(`PostgreSQL unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseConnectionError';
  }
}

/** Rethrows `err`, as a DatabaseConnectionError when it is a connection-level failure. */
export function rethrowClassified(err: unknown): never {
  if (isConnectionFailure(err) && !(err instanceof DatabaseConnectionError)) throw new DatabaseConnectionError(err);
  throw err;
}
