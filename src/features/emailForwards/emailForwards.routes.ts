import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { modeOf } from '../../db/modeScope.js';
import { DomainPath } from '../../http/pathParams.js';
import { CreatedHeaders } from '../../http/conditional.js';
import { domainNamed } from '../domains/index.js';
import { presentDnsRecord, type DnsProviders, ZONE_RECORD_LIMIT_REFUSAL } from '../dns/index.js';
import { admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from '../webhooks/index.js';
import { createEmailForward, removeEmailForward, type EmailForwardProps } from './emailForwards.js';
import { listEmailForwards } from './emailForwards.repository.js';
import { presentEmailForward } from './emailForward.presenter.js';
import { CreatedEmailForwardSchema, CreateEmailForwardBody, EmailForwardList, EmailForwardPath } from './schemas.js';
import { EMAIL_FORWARDS_FREE } from './mailLimits.js';

const BASE = '/api/v1/orgs/{org_oid}/domains/{domain}/email-forwards';
const NOT_FOUND = 'No such domain, or no such forward of it, in this organisation and mode (`NOT_FOUND`)';
const MODE_NOTE =
  'Our mail servers accept mail for a forward’s address only (550 at RCPT for any other), rewrite its envelope sender with SRS ' +
  'and pass it on unchanged (DKIM signatures keep verifying). A test-mode domain’s mail is delivered only to the development ' +
  'mailbox (`SMTP_URL` or `DATA_DIR/mail/`), never to its recipients (docs/api-guide.md, E-mail forwarding).';
const PROVIDER = 'The DNS provider refused the mail records (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed';
const PROVIDER_DOWN = 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed, retry later';

export type EmailForwardRouteDeps = Pick<PlatformDeps, 'db' | 'config'> & { dnsProviders: DnsProviders } & EventBudgetDeps;

export function emailForwardRoutes(deps: EmailForwardRouteDeps) {
  const props = (input: { path: { org_oid: string; domain: EmailForwardProps['domain'] }; principal: EmailForwardProps['principal']; requestId: string }): EmailForwardProps => ({
    db: deps.db,
    dnsProviders: deps.dnsProviders,
    principal: input.principal,
    orgId: input.path.org_oid,
    domain: input.path.domain,
    requestId: input.requestId,
    mxHost: deps.config.mailForwarding.hostname,
  });
  return [
    defineRoute({
      method: 'get',
      path: BASE,
      operationId: 'listEmailForwards',
      summary: 'The domain’s e-mail forwards, newest first (all of them: a domain holds at most its plan’s)',
      description: MODE_NOTE,
      tags: ['forwarding'],
      scope: 'dns:read',
      request: { path: DomainPath },
      responses: { 200: { description: 'Every forward of the domain', schema: EmailForwardList } },
      errors: { 404: NOT_FOUND },
      handler: async (ctx, { path, principal }) => {
        const mode = modeOf(principal.livemode);
        const domain = await domainNamed(deps.db, mode, path.org_oid, path.domain);
        ctx.body = { data: (await listEmailForwards(deps.db, mode, domain.id)).map((f) => presentEmailForward(f, domain.name)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: BASE,
      operationId: 'createEmailForward',
      summary: 'Forward mail for an address of the domain (or all of them, `*`) to up to 10 addresses',
      description:
        'The domain’s first forward also sets its mail records in one change of its zone, and says which in `records`: MX to our ' +
        'forwarder, SPF (`v=spf1 mx ~all`) unless it has an SPF record, and DMARC (`v=DMARC1; p=none`) unless it has one. ' +
        `A domain holds up to ${EMAIL_FORWARDS_FREE} forwards on the free plan (pro 5×, enterprise 20×). ${MODE_NOTE}`,
      tags: ['forwarding'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: DomainPath, body: CreateEmailForwardBody },
      responses: { 201: { description: 'Forwarding from now on', schema: CreatedEmailForwardSchema, headers: CreatedHeaders } },
      errors: {
        404: 'No such domain in this organisation and mode (`NOT_FOUND`)',
        409:
          'The domain is not `active` (`DOMAIN_STATE_CONFLICT`); it forwards that local part already (`DUPLICATE`); it holds its plan’s forwards ' +
          `(\`EMAIL_FORWARD_LIMIT\`); ${EVENT_BUDGET_ERRORS[409]}; or ${ZONE_RECORD_LIMIT_REFUSAL}`,
        422: 'The local part or a recipient is not an address mail can be forwarded for or to (`EMAIL_FORWARD_INVALID`, each at its `loc`)',
        429: EVENT_BUDGET_ERRORS[429],
        502: PROVIDER,
        503: PROVIDER_DOWN,
      },
      handler: async (ctx, input) => {
        await admitRequestEvents(deps, ctx.state, modeOf(input.principal.livemode));
        const { forward, records } = await createEmailForward({ ...props(input), localPart: input.body.local_part, to: input.body.to });
        ctx.status = 201;
        ctx.set('Location', `${BASE.replace('{org_oid}', input.path.org_oid).replace('{domain}', input.path.domain.name)}/${forward.id}`);
        ctx.body = { ...presentEmailForward(forward, input.path.domain.name), records: records.map(presentDnsRecord) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/{forward_id}`,
      operationId: 'deleteEmailForward',
      summary: 'Stop forwarding an address; the domain’s last forward removed takes its mail records away',
      description: `Mail for the address is refused (550) from then on. ${MODE_NOTE}`,
      tags: ['forwarding'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: EmailForwardPath },
      responses: { 204: { description: 'Deleted' } },
      errors: { 404: NOT_FOUND, 409: EVENT_BUDGET_ERRORS[409], 429: EVENT_BUDGET_ERRORS[429], 502: PROVIDER, 503: PROVIDER_DOWN },
      handler: async (ctx, input) => {
        await admitRequestEvents(deps, ctx.state, modeOf(input.principal.livemode));
        await removeEmailForward({ ...props(input), id: input.path.forward_id });
        ctx.status = 204;
      },
    }),
  ];
}
