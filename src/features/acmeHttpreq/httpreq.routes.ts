import { defineRoute } from '../../http/route.js';
import { OrgPath } from '../../http/pathParams.js';
import { cleanupChallenge, presentChallenge, type ChallengeProps } from './challengeRecords.js';
import { HttpreqBody, HttpreqResultSchema } from './schemas.js';
import { admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from '../webhooks/index.js';
import { modeOf } from '../../db/modeScope.js';
import { ZONE_RECORD_LIMIT_REFUSAL } from '../dns/index.js';

const BASE = '/api/v1/orgs/{org_oid}/acme/httpreq';
const AUTH_NOTE =
  'For lego’s `httpreq` DNS provider (and Caddy or anything else speaking it): `HTTPREQ_ENDPOINT` is ' +
  '`https://<this api>/api/v1/orgs/{org_oid}/acme/httpreq`. Authenticated by Bearer or by HTTP Basic whose password is an ' +
  'API key with `dns:write` (any user name: `HTTPREQ_USERNAME=api`, `HTTPREQ_PASSWORD=<key>`); a key made with the ' +
  '`certificates` preset and `allowed_records` naming the `_acme-challenge` TXT records can do this and nothing else. ' +
  'The record is changed as any record edit is (the DNS provider first, events, audit log; docs/certificates.md).';
const ERRORS = {
  404: 'No domain of this organisation holds `fqdn` in the caller’s mode (`NOT_FOUND`)',
  409: `The domain is not \`active\` (\`DOMAIN_STATE_CONFLICT\`), a CNAME stands at the name (\`RECORD_CONFLICT\`), ${EVENT_BUDGET_ERRORS[409]}, or ${ZONE_RECORD_LIMIT_REFUSAL}`,
  429: EVENT_BUDGET_ERRORS[429],
  502: 'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed',
  503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed, retry later',
};

export type HttpreqRouteDeps = Pick<ChallengeProps, 'db' | 'dnsProviders'> & EventBudgetDeps;

export function httpreqRoutes(deps: HttpreqRouteDeps) {
  const props = (input: { path: { org_oid: string }; body: { fqdn: string; value: string }; principal: ChallengeProps['principal']; requestId: string }): ChallengeProps => ({
    db: deps.db,
    dnsProviders: deps.dnsProviders,
    principal: input.principal,
    orgId: input.path.org_oid,
    fqdn: input.body.fqdn,
    value: input.body.value,
    requestId: input.requestId,
  });
  const steps = [
    {
      step: 'present',
      operationId: 'presentAcmeChallenge',
      summary: 'Add one DNS-01 challenge value (a TXT record) at a name; other values there stay',
      description:
        'Adds exactly this value to the TXT records at `fqdn` with a 60-second TTL, keeping any other value there, so the ' +
        'challenges of `example.com` and `*.example.com` (both at `_acme-challenge.example.com`) stand side by side. A value ' +
        'already there is left as it is: presenting twice answers 200 again.',
      outcome: 'present',
      apply: presentChallenge,
    },
    {
      step: 'cleanup',
      operationId: 'cleanupAcmeChallenge',
      summary: 'Remove one DNS-01 challenge value at a name; other values there stay',
      description:
        'Removes exactly this value from the TXT records at `fqdn`; the other values (another challenge in flight) stay. A value ' +
        'that is not there changes nothing: cleaning up twice answers 200 again.',
      outcome: 'absent',
      apply: cleanupChallenge,
    },
  ] as const;
  return steps.map((step) =>
    defineRoute({
      method: 'post',
      path: `${BASE}/${step.step}`,
      operationId: step.operationId,
      summary: step.summary,
      description: `${step.description} ${AUTH_NOTE}`,
      tags: ['certificates'],
      scope: 'dns:write',
      actsOnRecords: true,
      basicAuth: true,
      request: { path: OrgPath, body: HttpreqBody },
      responses: { 200: { description: `The value is ${step.outcome === 'present' ? '' : 'not '}at the name`, schema: HttpreqResultSchema } },
      errors: ERRORS,
      handler: async (ctx, input) => {
        await admitRequestEvents(deps, ctx.state, modeOf(input.principal.livemode));
        const { domain } = await step.apply(props(input));
        ctx.body = { fqdn: `${input.body.fqdn}.`, value: input.body.value, domain, status: step.outcome };
      },
    }),
  );
}
