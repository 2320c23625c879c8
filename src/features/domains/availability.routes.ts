import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { AvailabilityService } from './availability.js';
import { chargeRegistrarBudget } from '../../rateLimit/registrarBudget.js';
import { AvailabilityQuery, AvailabilitySchema, BulkAvailabilityBody, BulkAvailabilitySchema, TldListSchema } from './schemas.js';

const LIVE_LIMITS =
  'Live keys and sessions: each name costs one from your `registrar` budget (500 names a minute, times the plan, ' +
  'for all your keys and sessions together; 429 `RATE_LIMITED` past it), and the registrar is asked at a shared, ' +
  'paced rate: a name that cannot be checked in time answers `UPSTREAM_RATE_LIMITED` with `retry_after`. Live ' +
  'answers may be up to 60 s old.';
const TEST_NAMES =
  'Test keys get synthetic answers: a first label ending in `-taken` is unavailable, `-premium` costs 10x.';

export type AvailabilityRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'rateLimiter' | 'registrars'> & { availability: AvailabilityService };

export function availabilityRoutes(deps: AvailabilityRouteDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/domains/availability',
      operationId: 'checkAvailability',
      summary: 'Is a name available, and at what price',
      description: `Answers may be cached for a few seconds. ${LIVE_LIMITS} ${TEST_NAMES}`,
      tags: ['domains'],
      scope: 'domains:read',
      rateLimitGroup: 'availability',
      request: { query: AvailabilityQuery },
      responses: { 200: { description: 'The answer', schema: AvailabilitySchema } },
      errors: {
        422: 'The name is not one label below a sold suffix (`www.example.com`: ask for `example.com`), or is in the service’s own ACME-DNS zone (`DOMAIN_NAME_NOT_REGISTRABLE`, at `query.name`)',
        503: 'The registrar could not be asked in time (`UPSTREAM_RATE_LIMITED`, with `Retry-After`) or is down (`UPSTREAM_UNAVAILABLE`)',
      },
      handler: async (ctx, { query, principal }) => {
        await chargeRegistrarBudget({ db: deps.db, rateLimiter: deps.rateLimiter, principal, names: 1, scale: deps.config.rateLimitScale });
        ctx.body = await deps.availability.check({ input: query.name, livemode: principal.livemode, loc: ['query', 'name'] });
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/domains/availability/bulk',
      operationId: 'checkAvailabilityBulk',
      summary: 'Check up to 500 names at once (own rate-limit pool)',
      description:
        'Results come in input order; duplicates are checked once; an invalid name gets `{name, error}` in its slot (`INVALID_DOMAIN_NAME`, ' +
        `or \`DOMAIN_NAME_NOT_REGISTRABLE\` for a name such as \`www.example.com\`). ${LIVE_LIMITS} ${TEST_NAMES}`,
      tags: ['domains'],
      scope: 'domains:read',
      rateLimitGroup: 'bulk',
      request: { body: BulkAvailabilityBody },
      responses: { 200: { description: 'One result per name', schema: BulkAvailabilitySchema } },
      handler: async (ctx, { body, principal }) => {
        await chargeRegistrarBudget({ db: deps.db, rateLimiter: deps.rateLimiter, principal, names: body.names.length, scale: deps.config.rateLimitScale });
        ctx.body = { results: await deps.availability.checkMany({ inputs: body.names, livemode: principal.livemode }) };
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
