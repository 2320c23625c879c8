import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { OperationSchema, TransferDomainBody } from '../../features/domains/index.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseOrgPath as OrgPath } from '../../http/pathParams.js';
import { DryRunHeader } from '../../http/dryRun.js';
import { answerPaidStart, DRY_RUN_ANSWER, NOT_REGISTRABLE } from '../paidOperation/routeAnswers.js';
import { quoteTransfer, transferDomain } from './transferDomain.js';

export type TransferDomainRouteDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys' | 'registrars'>;

/** `POST …/domains/transfers`: a transfer in, paid from the balance. */
export function transferDomainRoutes(deps: TransferDomainRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/transfers',
      operationId: 'transferDomain',
      summary: 'Transfer a domain in: the transfer price is reserved now, the registry decides within days',
      description:
        'Answers 202 with an operation to poll; a pending transfer can be cancelled with `POST …/operations/{id}/cancel`. ' +
        'Test mode: a first label ending in `-locked` fails with `DOMAIN_LOCKED`, `-fail` with `REGISTRAR_REJECTED`. ' +
        '409 `PRICE_EXCEEDS_MAX` above `max_price`; `Dry-Run: true` answers 200 with the price after every check, and keeps nothing.',
      tags: ['domains'],
      scope: 'domains:write',
      charges: true,
      request: { path: OrgPath, header: DryRunHeader, body: TransferDomainBody },
      errors: {
        409: 'The domain is already in this organisation, or (live mode) held by another one (`DOMAIN_STATE_CONFLICT`, `DOMAIN_NOT_AVAILABLE`)',
        422: NOT_REGISTRABLE,
      },
      responses: {
        200: DRY_RUN_ANSWER,
        202: { description: 'Accepted; poll the operation', schema: OperationSchema },
      },
      handler: async (ctx, { path, header, body, principal }) => {
        const props = { deps, principal, orgId: path.org_oid, idempotency: ctx.state.idempotency, body };
        await answerPaidStart(ctx, header['dry-run'], props, { quote: quoteTransfer, begin: transferDomain });
      },
    }),
  ];
}
