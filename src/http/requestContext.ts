import type { Middleware } from 'koa';
import type { Logger } from '../logger.js';
import { newId } from '../ids.js';
import type { AppState } from './context.js';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when it is sane, else a new one),
 * sets it on the response before anything can fail, and logs one line per request.
 */
export function requestContext(logger: Logger): Middleware<AppState> {
  // The request line holds only what this function puts in it (the path without its query, never a
  // header or body), so it skips the redaction every other line goes through: that cost more than
  // the rest of the line (docs/bench.md).
  const requestLines = logger.child({}, { redact: [] });
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = CLIENT_REQUEST_ID.test(incoming) ? incoming : newId('req');
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    try {
      await next();
    } finally {
      requestLines.info(
        { requestId, method: ctx.method, path: ctx.path, status: ctx.status, durationMs: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}
