import { defineRoute } from '../../http/route.js';
import type { AppDeps } from '../../deps.js';
import { requirePrincipal } from '../../auth/authorize.js';
import { AvailabilityQuery, AvailabilitySchema, BulkAvailabilityBody, BulkAvailabilitySchema, TldListSchema } from './schema.js';

const TEST_NAMES =
  'Test keys get synthetic answers: a first label ending in `-taken` is unavailable, `-premium` costs 10x.';

export function availabilityRoutes(deps: AppDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/domains/availability',
      operationId: 'checkAvailability',
      summary: 'Is a name available, and at what price',
      description: `Answers may be cached for a few seconds. ${TEST_NAMES}`,
      tags: ['domains'],
      scope: 'domains:read',
      rateLimitGroup: 'availability',
      request: { query: AvailabilityQuery },
      responses: { 200: { description: 'The answer', schema: AvailabilitySchema } },
      handler: async (ctx, { query }) => {
        ctx.body = await deps.availability.check({
          input: query.name,
          livemode: requirePrincipal(ctx.state).livemode,
          loc: ['query', 'name'],
        });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/domains/availability/bulk',
      operationId: 'checkAvailabilityBulk',
      summary: 'Check up to 500 names at once (own rate-limit pool)',
      description: `Results come in input order; duplicates are checked once; an invalid name gets \`{name, error}\` in its slot. ${TEST_NAMES}`,
      tags: ['domains'],
      scope: 'domains:read',
      rateLimitGroup: 'bulk',
      request: { body: BulkAvailabilityBody },
      responses: { 200: { description: 'One result per name', schema: BulkAvailabilitySchema } },
      handler: async (ctx, { body }) => {
        ctx.body = { results: await deps.availability.checkMany({ inputs: body.names, livemode: requirePrincipal(ctx.state).livemode }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/domains/tlds',
      operationId: 'listTlds',
      summary: 'Supported TLDs with their register, renew and transfer prices (cents, USD)',
      tags: ['domains'],
      scope: 'domains:read',
      responses: { 200: { description: 'The price list', schema: TldListSchema } },
      handler: async (ctx) => {
        const table = await deps.registrars.prices();
        ctx.body = { data: Object.entries(table.tlds).map(([tld, prices]) => ({ tld, currency: table.currency, ...prices })) };
      },
    }),
  ];
}
