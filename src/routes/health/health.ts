import { defineRoute } from '../../http/route.js';
import type { AppDeps } from '../../deps.js';
import { checkReadiness } from '../../services/readiness.js';
import { LivenessSchema, NotReadySchema, ReadinessSchema } from './schema.js';

export function healthRoutes(deps: AppDeps) {
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
        503: { description: 'At least one dependency is down; `detail` names them', schema: NotReadySchema },
      },
      handler: async (ctx) => {
        const { ready, checks } = await checkReadiness(deps);
        if (ready) {
          ctx.body = { status: 'ready', checks };
          return;
        }
        const down = Object.entries(checks).filter(([, result]) => result !== 'ok');
        ctx.status = 503;
        ctx.set('Retry-After', '5');
        ctx.body = {
          status: 'not_ready',
          detail: `Not ready: ${down.map(([name, why]) => `${name} (${why})`).join(', ')}`,
          code: 'NOT_READY',
          checks,
        };
      },
    }),
  ];
}
