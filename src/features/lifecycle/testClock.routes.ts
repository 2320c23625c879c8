import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { TestClockBody, TestClockSchema } from '../domains/index.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseDomainPath as DomainPath } from '../../http/pathParams.js';
import { advanceTestClock } from './testClock.js';

export type TestClockRouteDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config'>;

/** `POST …/domains/{domain}/test-clock`: a test-mode domain's lifecycle moved forward. */
export function testClockRoutes(deps: TestClockRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/test-clock',
      operationId: 'advanceTestClock',
      summary: "Test mode: move a domain's lifecycle forward by some days (404 in live mode)",
      description:
        'Auto-renewal, expiry notices, expiry and deletion that those days bring happen within seconds, with the same ' +
        'e-mails, events and charges as in real time. Each domain has its own clock; it only moves forward.',
      tags: ['domains'],
      scope: 'domains:write',
      request: { path: DomainPath, body: TestClockBody },
      errors: { 404: 'No such domain in this organisation, or the caller is in live mode, where test clocks do not exist (`NOT_FOUND`)' },
      responses: { 200: { description: 'The clock moved', schema: TestClockSchema } },
      handler: async (ctx, { path, body, principal }) => {
        const { domain, now } = await advanceTestClock({ deps, principal, orgId: path.org_oid, domainName: path.domain, days: body.advance_days });
        ctx.body = {
          domain: domain.name,
          status: domain.status,
          expires_at: domain.expiresAt?.toISOString() ?? null,
          offset_days: domain.clockOffsetDays,
          now: now.toISOString(),
        };
      },
    }),
  ];
}
