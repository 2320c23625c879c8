import { defineRoute } from '../../http/route.js';
import { checkReadiness, type ReadinessDeps } from './readiness.js';
import { LivenessSchema, ReadinessSchema } from './schemas.js';

export type HealthRouteDeps = ReadinessDeps;

export function healthRoutes(deps: HealthRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/healthz',
      operationId: 'getLiveness',
      summary: 'Liveness: the process is up and serving HTTP',
      tags: ['health'],
      scope: 'public',
      responses: { 200: { description: 'Alive', schema: LivenessSchema } },
      handler: (ctx) => {
        ctx.body = { status: 'ok' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/readyz',
      operationId: 'getReadiness',
      summary: 'Readiness: PostgreSQL, Redis, Temporal and a worker on the task queue all answer',
      tags: ['health'],
      scope: 'public',
      responses: {
        200: { description: 'Every dependency answers', schema: ReadinessSchema },
        503: { description: 'At least one dependency is down; `checks` names it (the reason is logged only)', schema: ReadinessSchema },
      },
      handler: async (ctx) => {
        const { ready, checks, reasons } = await checkReadiness(deps);
        ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
        if (ready) return;
        // Client messages ("Stream isn't writeable…", addresses) tell an outsider how we are built.
        ctx.state.log.warn({ checks, reasons }, 'not ready');
        ctx.status = 503;
        ctx.set('Retry-After', '5');
      },
    }),
  ];
}
