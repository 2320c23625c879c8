import { ApiError, OperationTimeoutError } from '../../client/src/index.js';
import { EXIT, exitForStatus, type ExitName } from './exitCodes.js';

/** An error of the command line itself, with the exit code it ends with and an optional code for `--json`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exit: ExitName,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface ShownError {
  exit: number;
  /** One line for a person. */
  line: string;
  /** What `--json` prints. */
  json: { error: { code: string; detail: unknown; status?: number; request_id?: string } };
}

/** Field errors as `where: what`, joined: `body.name: Must be a domain name`. */
function words(detail: ApiError['detail']): string {
  return typeof detail === 'string' ? detail : detail.map((e) => `${e.loc.slice(1).join('.') || e.loc[0]}: ${e.msg}`).join('; ');
}

/** Any error as one line with its code, and the exit code it means. */
export function showError(err: unknown): ShownError {
  if (err instanceof ApiError) {
    const request = err.requestId ? ` (request ${err.requestId})` : '';
    const retry = err.retryAfterSeconds !== undefined ? `; retry after ${err.retryAfterSeconds} s` : '';
    return {
      exit: EXIT[exitForStatus(err.status)].code,
      line: `${err.code}: ${words(err.detail)}${retry}${request}`,
      json: { error: { code: err.code, detail: err.detail, status: err.status, ...(err.requestId ? { request_id: err.requestId } : {}) } },
    };
  }
  if (err instanceof CliError) {
    const code = err.code ?? err.exit.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
    return { exit: EXIT[err.exit].code, line: err.code ? `${err.code}: ${err.message}` : err.message, json: { error: { code, detail: err.message } } };
  }
  if (err instanceof OperationTimeoutError) {
    return { exit: EXIT.stillRunning.code, line: `STILL_RUNNING: ${err.message}`, json: { error: { code: 'STILL_RUNNING', detail: err.message } } };
  }
  // fetch's TypeError: the API could not be reached at all.
  if (err instanceof TypeError && 'cause' in err) {
    const cause = err.cause as { code?: string; message?: string } | undefined;
    const detail = `The API could not be reached (${cause?.code ?? cause?.message ?? err.message})`;
    return { exit: EXIT.unavailable.code, line: `UNREACHABLE: ${detail}`, json: { error: { code: 'UNREACHABLE', detail } } };
  }
  const detail = err instanceof Error ? err.message : String(err);
  return { exit: EXIT.unexpected.code, line: `UNEXPECTED: ${detail}`, json: { error: { code: 'UNEXPECTED', detail } } };
}
