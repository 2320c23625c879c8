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
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, durationMs: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}
