import Koa, { type Middleware } from 'koa';
import Router, { type RouterMiddleware } from '@koa/router';
import type { z } from 'zod';
import type { Logger } from '../logger.js';
import { ApiError, ValidationError } from '../errors.js';
import { errorHandler } from '../http/errorHandler.js';
import { jsonBody } from '../http/jsonBody.js';
import { requestContext } from '../http/requestContext.js';
import type { AppState } from '../http/context.js';
import { ChangesSchema, EndpointListSchema, WEBHOOK_MEDIA_TYPE } from './protocol.js';
import type { ExternalDnsProvider } from './provider.js';
import { webhookFailure } from './apiFailures.js';

/**
 * external-dns's change sets are larger than the api's requests: about half a kilobyte per record,
 * and its own client caps bodies at 32 MiB. A first sync of a large cluster fits in this.
 */
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Version 1 of the protocol, byte for byte, both ways: a request that accepts only something else
 * is 406, a body of another type 415. Answers carry the media type exactly as external-dns's
 * client compares it (Koa's own `ctx.type` would add a charset).
 */
const mediaType: Middleware<AppState> = async (ctx, next) => {
  const accept = ctx.get('Accept');
  const acceptable = accept === '' || accept.split(',').some((range) => [WEBHOOK_MEDIA_TYPE, '*/*', 'application/*'].includes(range.trim()));
  if (!acceptable) throw new ApiError('NOT_ACCEPTABLE', `This provider answers ${WEBHOOK_MEDIA_TYPE} only`);
  if (ctx.method === 'POST' && ctx.get('Content-Type') !== WEBHOOK_MEDIA_TYPE) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `Send the body as ${WEBHOOK_MEDIA_TYPE}`);
  }
  await next();
};

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ loc: ['body', ...i.path.map(String)], msg: i.message, type: i.code })));
  return parsed.data;
}

export interface WebhookAppProps {
  provider: ExternalDnsProvider;
  logger: Logger;
  /** How long one request may take, its api calls included (EXTERNAL_DNS_WEBHOOK_DEADLINE). */
  deadlineMs: number;
}

/** The webhook external-dns's `--provider=webhook` calls (docs/external-dns.md). */
export function createWebhookApp({ provider, logger, deadlineMs }: WebhookAppProps): Koa<AppState> {
  const answer = (run: (signal: AbortSignal, body: unknown) => Promise<unknown>): RouterMiddleware<AppState> => async (ctx) => {
    const deadline = AbortSignal.timeout(deadlineMs);
    let result: unknown;
    try {
      result = await run(deadline, ctx.state.body);
    } catch (err) {
      // Answered here rather than by the error handler: an api that is down or refuses is worth a
      // warning with its words, not an error with this process's stack.
      const failure = webhookFailure(err, deadline);
      ctx.state.log.warn({ status: failure.status, code: failure.code, detail: failure.detail }, 'external-dns request refused');
      ctx.status = failure.status;
      ctx.set(failure.headers);
      ctx.body = failure.toBody();
      return;
    }
    if (result === undefined) {
      ctx.status = 204;
      return;
    }
    ctx.set('Content-Type', WEBHOOK_MEDIA_TYPE);
    ctx.body = JSON.stringify(result);
  };

  const router = new Router<AppState>();
  router.get('/', answer((signal) => provider.domainFilter(signal)));
  router.get('/records', answer((signal) => provider.records(signal)));
  router.post('/records', answer((signal, body) => provider.applyChanges(parse(ChangesSchema, body), signal)));
  router.post('/adjustendpoints', answer((signal, body) => provider.adjustEndpoints(parse(EndpointListSchema, body), signal)));

  const app = new Koa<AppState>();
  app.use(requestContext(logger));
  app.use(errorHandler());
  app.use(mediaType);
  app.use(jsonBody(BODY_LIMIT_BYTES));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

/** `/healthz` on a port of its own, for the kubelet's probes: the process is up and serving. */
export function createHealthApp(): Koa<AppState> {
  const app = new Koa<AppState>();
  app.use((ctx) => {
    if (ctx.path !== '/healthz') return;
    ctx.body = { status: 'ok' };
  });
  return app;
}
