import type { ApiError } from '../errors.js';
import { ConflictError, ServiceUnavailableError, ValidationError } from '../errors.js';
import { DatabaseConnectionError, isUnavailableSqlState } from './connectionErrors.js';

interface PgDatabaseError {
  code: string;
  constraint?: string;
}

function isPgError(err: unknown): err is PgDatabaseError {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    typeof err.code === 'string' &&
    /^[0-9A-Z]{5}$/.test(err.code) &&
    'severity' in err
  );
}

/** Seconds a client is asked to wait after a database outage answer. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

const databaseUnavailable = () =>
  new ServiceUnavailableError('DATABASE_UNAVAILABLE', 'The database is unavailable; retry later', DATABASE_RETRY_AFTER_SECONDS);

/**
 * A value the database refused to store or compare: class 22 "data exception" (NUL bytes 22021 and
 * 22P05, impossible dates 22008/22009/22007, malformed text for a column's type 22P02, numbers out of
 * range 22003, …) and values too large for an index or a row (54000). The request schemas and
 * `safeText.ts` refuse these before they get here; this is the backstop, so a missed case is the
 * client's 422 and not our 500. Division by zero (22012) is ours, and stays a 500.
 */
const isDataException = (code: string) => (code.startsWith('22') && code !== '22012') || code === '54000';

const unstorableValue = () =>
  new ValidationError([
    {
      loc: ['body'],
      msg: 'A value in the request cannot be stored (it holds characters, a size or a magnitude the database does not accept)',
      type: 'value_unstorable',
    },
  ]);

/**
 * PostgreSQL errors by SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html), and
 * connection failures from the pool. Anything unmapped stays an opaque 500: constraint names and SQL
 * never reach a client.
 */
export function apiErrorFromPg(err: unknown): ApiError | undefined {
  if (err instanceof DatabaseConnectionError) return databaseUnavailable();
  if (!isPgError(err)) return undefined;
  if (isUnavailableSqlState(err.code)) return databaseUnavailable();
  if (isDataException(err.code)) return unstorableValue();
  switch (err.code) {
    case '23505':
      return new ConflictError('DUPLICATE', 'A resource with the same unique attributes already exists');
    case '40001':
    case '40P01':
      return new ConflictError('CONCURRENT_UPDATE', 'The resource was changed concurrently; retry the request');
    default:
      return undefined;
  }
}
