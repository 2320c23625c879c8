import Koa from 'koa';
import type { Logger } from '../logger.js';
import { DEFAULT_HTTP_TIMEOUTS, listen, type ListeningServer } from '../http/listen.js';
import type { Metrics } from './registry.js';

/** `GET /metrics` in Prometheus' text format; anything else is 404. No auth: it binds to loopback by default. */
export function createMetricsApp(metrics: Pick<Metrics, 'registry'>): Koa {
  const app = new Koa();
  app.use(async (ctx) => {
    if (ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      ctx.status = 404;
      return;
    }
    ctx.set('Content-Type', metrics.registry.contentType);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await metrics.registry.metrics();
  });
  return app;
}

/** The metrics listener, separate from the api so it can stay off the network the api faces. */
export async function startMetricsServer(
  metrics: Pick<Metrics, 'registry'>,
  where: { host: string; port: number },
  logger: Logger,
): Promise<ListeningServer> {
  const server = await listen(createMetricsApp(metrics), where.host, where.port, DEFAULT_HTTP_TIMEOUTS, 'METRICS_PORT');
  logger.info({ url: `${server.url}/metrics` }, 'metrics listening');
  return server;
}
