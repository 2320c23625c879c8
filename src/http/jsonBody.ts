import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { ApiError, InvalidJsonError, PayloadTooLargeError, UnsupportedEncodingError } from '../errors.js';
import type { AppState } from './context.js';

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
/**
 * Deepest nesting of arrays and objects a body may have. No request schema goes past 4 levels; the
 * limit keeps recursive code further down (the idempotency hash, zod) far from the stack's end.
 */
export const JSON_MAX_DEPTH = 64;

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Deepest `[`/`{` nesting outside strings, stopping as soon as `max` is passed: one linear scan. */
function nestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/** The body as JSON, or the 400 that says why not (invalid UTF-8, too deep, malformed). */
export function parseJsonBody(raw: Buffer): unknown {
  let text: string;
  try {
    // A lenient decode would store U+FFFD in place of the bad bytes without anyone noticing.
    text = utf8.decode(raw);
  } catch {
    throw new InvalidJsonError('Body is not valid UTF-8', 'utf8_invalid');
  }
  if (nestingExceeds(text, JSON_MAX_DEPTH)) {
    throw new InvalidJsonError(`JSON nested deeper than ${JSON_MAX_DEPTH} levels`, 'json_too_deep');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidJsonError(`Malformed JSON: ${(err as Error).message}`);
  }
}

async function readRaw(req: Parameters<typeof getRawBody>[0], limitBytes: number, length: string | undefined): Promise<Buffer> {
  try {
    return await getRawBody(req, { limit: limitBytes, length });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new PayloadTooLargeError(limitBytes);
    if (type === 'request.size.invalid' || type === 'request.aborted' || type === 'stream.not.readable') {
      // The client sent fewer bytes than it announced, or went away (the stream closed while
      // authentication ran): its mistake, not ours.
      throw new InvalidJsonError('Body is shorter than its Content-Length', 'body_incomplete');
    }
    throw err;
  }
}

/**
 * Reads a JSON body (1 MB at most) into `ctx.state.body`, keeping the exact bytes in
 * `ctx.state.rawBody` for signature checks and idempotency hashes. A request without a body
 * leaves both undefined, so the route's schema decides whether that is allowed. Compressed bodies
 * are refused (415) rather than decoded: no client of this API needs them, and inflating one is
 * a way to turn a small request into a large allocation.
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
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') throw new UnsupportedEncodingError(encoding);
    if (!ctx.is('application/json', '+json')) {
      throw new InvalidJsonError('Content-Type must be application/json', 'content_type_invalid');
    }
    const raw = await readRaw(ctx.req, limitBytes, ctx.req.headers['content-length']);
    ctx.state.rawBody = raw;
    if (beforeParse) await beforeParse(ctx);
    ctx.state.body = parseJsonBody(raw);
    await next();
  };
}

/**
 * Reads a text body of one of `contentTypes` (a zone file as `text/dns`) into `ctx.state.body` as a
 * string, with the route's own size limit; the exact bytes go to `ctx.state.rawBody` as for JSON.
 * The same refusals as jsonBody: compressed bodies (415), bodies over the limit (413), invalid UTF-8.
 */
export function textBody(options: { contentTypes: readonly string[]; limitBytes: number }): Middleware<AppState> {
  return async (ctx, next) => {
    if (!hasBody(ctx.req.headers)) {
      await next();
      return;
    }
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') throw new UnsupportedEncodingError(encoding);
    if (!ctx.is(...options.contentTypes)) {
      throw new ApiError('BAD_REQUEST', [
        { loc: ['header', 'content-type'], msg: `Content-Type must be ${options.contentTypes.join(' or ')}`, type: 'content_type_invalid' },
      ]);
    }
    const raw = await readRaw(ctx.req, options.limitBytes, ctx.req.headers['content-length']);
    ctx.state.rawBody = raw;
    try {
      ctx.state.body = utf8.decode(raw);
    } catch {
      throw new InvalidJsonError('Body is not valid UTF-8', 'utf8_invalid');
    }
    await next();
  };
}
