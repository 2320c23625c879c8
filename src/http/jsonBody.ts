import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { InvalidJsonError, PayloadTooLargeError } from '../errors.js';
import type { AppState } from './context.js';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/**
 * Reads a JSON body (1 MB at most) into `ctx.state.body`, keeping the exact bytes in
 * `ctx.state.rawBody` for signature checks and idempotency hashes. A request without a body
 * leaves both undefined, so the route's schema decides whether that is allowed.
 */
export function jsonBody(
  limitBytes = JSON_BODY_LIMIT_BYTES,
  /** Runs on the exact bytes before they are parsed (a signature check): a forged body is never parsed. */
  beforeParse?: (ctx: Parameters<Middleware<AppState>>[0]) => Promise<void>,
): Middleware<AppState> {
  return async (ctx, next) => {
    if (!hasBody(ctx.req.headers)) {
      if (beforeParse) await beforeParse(ctx);
      await next();
      return;
    }
    if (!ctx.is('application/json', '+json')) {
      throw new InvalidJsonError('Content-Type must be application/json', 'content_type_invalid');
    }
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.req.headers['content-length'] });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
      throw err;
    }
    ctx.state.rawBody = raw;
    if (beforeParse) await beforeParse(ctx);
    try {
      ctx.state.body = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new InvalidJsonError(`Malformed JSON: ${(err as Error).message}`);
    }
    await next();
  };
}
