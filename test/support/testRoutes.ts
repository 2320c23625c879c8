import { defineRoute, type RouteSpec } from '../../src/http/route.js';

/**
 * `POST /test/<name>` for any authenticated caller, through every layer a real write goes through
 * (rate limits, idempotency): 201 with what `answer` returns, or what it throws, rendered.
 */
export function testWriteRoute(name: string, summary: string, answer: () => unknown): RouteSpec {
  const words = name.split('-').map((word) => word[0]!.toUpperCase() + word.slice(1));
  return defineRoute({
    method: 'post',
    path: `/test/${name}`,
    operationId: `test${words.join('')}`,
    summary,
    tags: ['test'],
    scope: 'any',
    responses: { 201: { description: 'Done' } },
    handler: async (ctx) => {
      ctx.body = await answer();
      ctx.status = 201;
    },
  });
}
