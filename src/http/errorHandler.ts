import type { Middleware, ParameterizedContext } from 'koa';
import { ApiError, ApiErrorWithStatus, InternalError, MethodNotAllowedError, NotFoundError, PayloadTooLargeError, ServiceUnavailableError } from '../errors.js';
import { ServiceError } from '@temporalio/client';
import { apiErrorFromPg } from '../db/pgErrors.js';
import type { AppState } from './context.js';
import type { ErrorCode } from './errorCodes.js';

const HTTP_ERROR_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'INVALID_JSON',
  501: 'NOT_IMPLEMENTED',
};

/** Koa and its libraries throw `http-errors`; keep their 4xx status, never their internals. */
function fromHttpError(err: unknown): ApiError | undefined {
  if (typeof err !== 'object' || err === null || !('status' in err) || typeof err.status !== 'number') return undefined;
  const { status } = err;
  if (status === 413) return new PayloadTooLargeError(1024 * 1024);
  if (status < 400 || status >= 500) return undefined;
  const message = 'expose' in err && err.expose && err instanceof Error ? err.message : 'Bad request';
  return new ApiErrorWithStatus(status, HTTP_ERROR_CODES[status] ?? 'BAD_REQUEST', message);
}

/** Routes nobody matched: 404, or 405 with `Allow` when the path exists under another method. */
function unmatchedRoute(status: number, allow: string): ApiError | undefined {
  if (status === 404) return new NotFoundError();
  if (status === 405) return new MethodNotAllowedError(allow.split(/,\s*/).filter(Boolean));
  if (status === 501) return new ApiError('NOT_IMPLEMENTED', 'Method not implemented');
  return undefined;
}

/** Anything thrown, as the ApiError it is rendered as. */
export function toApiError(err: unknown, requestId: string): ApiError {
  if (err instanceof ServiceError) {
    // The Temporal frontend did not answer: a dependency outage, safe to retry, not a bug of ours.
    return new ServiceUnavailableError('WORKFLOW_ENGINE_UNAVAILABLE', 'The workflow engine is unavailable; retry shortly', 5);
  }
  return err instanceof ApiError ? err : (apiErrorFromPg(err) ?? fromHttpError(err) ?? new InternalError(requestId));
}

/** Writes an error into the response in the spec's `{detail, code}` body; logs server faults. */
export function renderError(ctx: ParameterizedContext<AppState>, err: unknown): ApiError {
  const apiError = toApiError(err, ctx.state.requestId);
  if (apiError.status >= 500) ctx.state.log.error({ err }, 'request failed');
  ctx.status = apiError.status;
  ctx.set(apiError.headers);
  ctx.body = apiError.toBody();
  return apiError;
}

/** The one place that turns anything thrown into the spec's `{detail, code}` body. */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body == null) {
        const unmatched = unmatchedRoute(ctx.status, ctx.response.get('Allow'));
        if (unmatched) throw unmatched;
      }
    } catch (err) {
      renderError(ctx, err);
    }
  };
}
