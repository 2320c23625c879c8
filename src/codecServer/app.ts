import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { z } from 'zod';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { Logger } from '../logger.js';
import { OriginNotAllowedError, PayloadNotDecodableError, ValidationError } from '../errors.js';
import { errorHandler } from '../http/errorHandler.js';
import { jsonBody } from '../http/jsonBody.js';
import { requestContext } from '../http/requestContext.js';
import type { AppState } from '../http/context.js';
import { codecSession, requireCodecToken } from './auth.js';

/** Temporal's remote codec protocol: payload metadata values and data in base64, as the Web UI sends them. */
const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64');
const payloadsBody = z.object({
  payloads: z.array(z.object({ metadata: z.record(z.string(), base64).nullish(), data: base64.nullish() })),
});
type JsonPayload = z.output<typeof payloadsBody>['payloads'][number];

const fromJson = (payload: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(payload.data ?? '', 'base64'),
});
const toJson = (payload: Payload) => ({
  metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
});

// The Web UI sends the namespace, JSON, and (when configured to) the user's access token.
const ALLOWED_HEADERS = 'Content-Type, X-Namespace, Authorization';
// Histories carry payloads of up to 2 MB each; the UI decodes one event's payloads per request.
const BODY_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * CORS for the Web UI's origin only. A request from any other origin gets no `Access-Control-*`
 * header and is refused outright, so a page elsewhere can neither read a decoded payload nor make
 * the server decode one. Requests without `Origin` (the `temporal` CLI's `--codec-endpoint`, curl on
 * this host) pass this check; beyond loopback they still need the token (./auth.ts). A preflight is
 * answered without the token, as browsers send none with it.
 */
function corsForUi(allowedOrigins: string[]): Middleware<AppState> {
  const allowed = new Set(allowedOrigins);
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    ctx.vary('Origin');
    // The sign-in form of ./auth.ts posting back to its own origin. Nowhere else: a page on a
    // rebound DNS name also sees itself as this origin.
    if (origin && ctx.path === '/session' && origin === `${ctx.protocol}://${ctx.host}`) {
      await next();
      return;
    }
    if (origin && !allowed.has(origin)) {
      throw new OriginNotAllowedError(origin);
    }
    if (origin) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
    }
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}

function transform(run: (payloads: Payload[]) => Promise<Payload[]>, failure: string): Middleware<AppState> {
  return async (ctx) => {
    const parsed = payloadsBody.safeParse(ctx.state.body);
    if (!parsed.success) {
      throw new ValidationError(parsed.error.issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message, type: i.code })));
    }
    let payloads: Payload[];
    try {
      payloads = await run(parsed.data.payloads.map(fromJson));
    } catch (err) {
      ctx.state.log.warn({ err }, failure);
      throw new PayloadNotDecodableError(`${failure}: ${(err as Error).message}`);
    }
    ctx.body = { payloads: payloads.map(toJson) };
  };
}

export interface CodecServerAppProps {
  codec: PayloadCodec;
  corsOrigins: string[];
  /** The secret callers must present (CODEC_SERVER_TOKEN); undefined: none asked (loopback only). */
  token: string | undefined;
  logger: Logger;
}

/** The codec server operators point the Temporal Web UI (or `temporal --codec-endpoint`) at. */
export function createCodecServerApp({ codec, corsOrigins, token, logger }: CodecServerAppProps): Koa<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.post('/encode', transform((p) => codec.encode(p), 'could not encode the payloads'));
  router.post('/decode', transform((p) => codec.decode(p), 'could not decode the payloads (unknown key or altered data)'));
  const app = new Koa<AppState>();
  app.use(requestContext(logger));
  app.use(errorHandler());
  app.use(corsForUi(corsOrigins));
  app.use(codecSession(token));
  app.use(requireCodecToken(token));
  app.use(jsonBody(BODY_LIMIT_BYTES));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
