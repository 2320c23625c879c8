import { defineRoute } from '../../http/route.js';
import { OperationSchema, answerAccepted } from '../domains/index.js';
import { DnssecSchema } from './dnssec.presenter.js';
import { changeDnssec, readDnssec, type DnssecChange, type DnssecDeps, type ReadDnssecDeps } from './dnssec.js';
import { DomainPath } from '../../http/pathParams.js';
import type { AppContext } from '../../http/context.js';
import type { HandlerInput } from '../../http/route.js';

const PATH = '/api/v1/orgs/{org_oid}/domains/{domain}/dnssec';
const NOT_FOUND = 'No such domain in this organisation and mode (`NOT_FOUND`)';
const MODES =
  'Live mode signs the zone at the DNS provider (PowerDNS) and publishes the DS at the registrar. Test mode publishes ' +
  'no DS; it signs the zone on the test DNS host when there is one and the zone there is this domain\'s (`served`), ' +
  'else it answers a real key derived from the name, and its true DS, which sign nothing (docs/api-guide.md, DNSSEC).';

type ChangeInput = HandlerInput<{ path: typeof DomainPath }, 'dns:write'>;

export type DnssecRouteDeps = DnssecDeps & ReadDnssecDeps;

export function dnssecRoutes(deps: DnssecRouteDeps) {
  const change = async (ctx: AppContext, { path, principal, requestId }: ChangeInput, which: DnssecChange) => {
    const operation = await changeDnssec({
      deps,
      principal,
      orgId: path.org_oid,
      domainName: path.domain,
      change: which,
      idempotency: ctx.state.idempotency,
      requestId,
    });
    answerAccepted(ctx, operation);
  };

  /** POST and DELETE: the same shape, 202 with the operation. */
  const changeRoute = (
    which: DnssecChange,
    spec: { method: 'post' | 'delete'; operationId: string; summary: string; description: string; conflict: string },
  ) =>
    defineRoute({
      method: spec.method,
      path: PATH,
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.description,
      tags: ['dns'],
      scope: 'dns:write',
      request: { path: DomainPath },
      responses: { 202: { description: 'Accepted; poll the operation', schema: OperationSchema } },
      errors: { 404: NOT_FOUND, 409: `${spec.conflict}; the domain is not \`active\` (\`DOMAIN_STATE_CONFLICT\`)` },
      handler: (ctx, input) => change(ctx, input, which),
    });

  return [
    defineRoute({
      method: 'get',
      path: PATH,
      operationId: 'getDnssec',
      summary: "Where the domain's DNSSEC stands, and the DS of its key",
      description: MODES,
      tags: ['dns'],
      scope: 'dns:read',
      request: { path: DomainPath },
      responses: { 200: { description: 'The DNSSEC state', schema: DnssecSchema } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        ctx.body = await readDnssec(deps, principal, path.org_oid, path.domain);
      },
    }),
    changeRoute('enable', {
      method: 'post',
      operationId: 'enableDnssec',
      summary: "Sign the domain's zone (ECDSA P-256, algorithm 13) and publish its DS",
      description:
        'Answers 202 with an operation to poll (`Location`); `GET …/dnssec` shows `signing`, then `active` with the DS ' +
        '(key tag, algorithm 13, digest type 2, digest). Send an `Idempotency-Key`: a retried request finds its operation. ' +
        `Costs nothing. ${MODES}`,
      conflict: 'DNSSEC is not `off` (`DNSSEC_STATE_CONFLICT`: signing, active or being removed)',
    }),
    changeRoute('disable', {
      method: 'delete',
      operationId: 'disableDnssec',
      summary: 'Turn DNSSEC off: the DS is withdrawn at the registrar first, the zone unsigned once the parent’s DS TTL has passed',
      description:
        'Answers 202 with an operation to poll; `GET …/dnssec` shows `removing` until the zone is unsigned, then `off`. ' +
        'Live mode waits `DNSSEC_DS_REMOVAL_WAIT` (two days by default) between the two, so no resolver still holding the DS ' +
        `meets an unsigned zone; test mode two seconds. ${MODES}`,
      conflict: 'DNSSEC is not `active` (`DNSSEC_STATE_CONFLICT`: off, still signing, or already being removed)',
    }),
  ];
}
