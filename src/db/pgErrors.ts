import type { ApiError} from '../errors.js';
import { ConflictError, ServiceUnavailableError } from '../errors.js';

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

/**
 * PostgreSQL errors by SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html).
 * Anything unmapped stays an opaque 500: constraint names and SQL never reach a client.
 */
export function apiErrorFromPg(err: unknown): ApiError | undefined {
  if (!isPgError(err)) return undefined;
  switch (err.code) {
    case '23505':
      return new ConflictError('DUPLICATE', 'A resource with the same unique attributes already exists');
    case '40001':
    case '40P01':
      return new ConflictError('CONCURRENT_UPDATE', 'The resource was changed concurrently; retry the request');
    case '57P01':
    case '57P03':
    case '53300':
      return new ServiceUnavailableError('DATABASE_UNAVAILABLE', 'The database is unavailable; retry later', 1);
    default:
      return undefined;
  }
}
