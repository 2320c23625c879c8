import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { type AvailabilityService, OperationSchema, RegisterDomainBody } from '../../features/domains/index.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseOrgPath as OrgPath } from '../../http/pathParams.js';
import { DryRunHeader } from '../../http/dryRun.js';
import { answerPaidStart, DRY_RUN_ANSWER, NOT_REGISTRABLE } from '../paidOperation/routeAnswers.js';
import { quoteRegistration, registerDomain } from './registerDomain.js';

export type RegisterDomainRouteDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys' | 'registrars'> & { availability: AvailabilityService };

/** `POST …/domains`: a registration, paid from the balance. */
export function registerDomainRoutes(deps: RegisterDomainRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains',
      operationId: 'registerDomain',
      summary: 'Register a domain: the price is reserved now, the registration completes asynchronously',
      description:
        'Answers 202 with an operation to poll (`Location`). Send an `Idempotency-Key`: the workflow id derives from it, ' +
        'so a retried request never starts a second registration. 402 when the balance is short; 409 ' +
        '`DOMAIN_NOT_AVAILABLE` or `DOMAIN_STATE_CONFLICT`; 409 `PRICE_EXCEEDS_MAX` above `max_price`. ' +
        '`Dry-Run: true` answers 200 with the price after every check, and keeps nothing.',
      tags: ['domains'],
      scope: 'domains:write',
      charges: true,
      request: { path: OrgPath, header: DryRunHeader, body: RegisterDomainBody },
      errors: {
        409: 'The name is taken (`DOMAIN_NOT_AVAILABLE`) or already registered or being registered by this organisation (`DOMAIN_STATE_CONFLICT`)',
        422: NOT_REGISTRABLE,
      },
      responses: {
        200: DRY_RUN_ANSWER,
        202: { description: 'Accepted; poll the operation', schema: OperationSchema },
      },
      handler: async (ctx, { path, header, body, principal }) => {
        const props = { deps, principal, orgId: path.org_oid, idempotency: ctx.state.idempotency, body };
        await answerPaidStart(ctx, header['dry-run'], props, { quote: quoteRegistration, begin: registerDomain });
      },
    }),
  ];
}
