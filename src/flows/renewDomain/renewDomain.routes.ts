import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { answerAccepted, OperationSchema, DryRunSchema, presentDryRun, RenewDomainBody, RenewedSchema } from '../../features/domains/index.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseDomainPath as DomainPath } from '../../http/pathParams.js';
import { DryRunHeader } from '../../http/dryRun.js';
import { quoteRenewal, renewDomain } from './renewDomain.js';

const notRenewable = 'The domain is neither `active` nor `expired` (in its grace period)';

export type RenewDomainRouteDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys' | 'registrars'>;

/** `POST …/domains/{domain}/renew`: a renewal by hand, paid from the balance. */
export function renewDomainRoutes(deps: RenewDomainRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/renew',
      operationId: 'renewDomain',
      summary: 'Renew a domain: 200 with the new expiry when done within 10 seconds, else 202 with the operation',
      description:
        'Send an `Idempotency-Key`: a retried renewal never charges twice. 409 `PRICE_EXCEEDS_MAX` above `max_price`; ' +
        '`Dry-Run: true` answers 200 with the price (`dry_run: true`) after every check, and keeps nothing.',
      tags: ['domains'],
      scope: 'domains:write',
      charges: true,
      request: { path: DomainPath, header: DryRunHeader, body: RenewDomainBody },
      errors: { 409: `${notRenewable}, or a renewal of it is already running (\`DOMAIN_STATE_CONFLICT\`)` },
      responses: {
        200: { description: 'Renewed, or (with `Dry-Run: true`) the price of renewing', schema: z.union([RenewedSchema, DryRunSchema]) },
        202: { description: 'Still running; poll the operation', schema: OperationSchema },
      },
      handler: async (ctx, { path, header, body, principal }) => {
        const props = {
          deps,
          principal,
          orgId: path.org_oid,
          domainName: path.domain,
          years: body.years,
          maxPrice: body.max_price,
          idempotency: ctx.state.idempotency,
        };
        if (header['dry-run']) {
          ctx.body = presentDryRun(await quoteRenewal(props));
          return;
        }
        const outcome = await renewDomain(props);
        if (outcome.done) {
          ctx.body = {
            domain: outcome.domain.name,
            expires_at: outcome.domain.expiresAt?.toISOString() ?? null,
            years: body.years,
            charged: { amount: outcome.operation.amount, currency: 'USD' },
            operation_id: outcome.operation.id,
          };
          return;
        }
        answerAccepted(ctx, outcome.operation);
      },
    }),
  ];
}
