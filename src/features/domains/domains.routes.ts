import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import { answerAccepted } from './accepted.js';
import type { AppDeps } from '../../deps.js';
import { listDomainsOfOrg } from './domains.repository.js';
import { decodeCursor, PaginationQuery, pageSchema, toPage } from '../../http/pagination.js';
import { DomainSchema, OperationSchema, presentDomain } from './operation.presenter.js';
import { quoteRegistration, registerDomain } from './registerDomain.js';
import { DryRunHeader } from '../../http/dryRun.js';
import { DryRunSchema, presentDryRun } from './dryRun.presenter.js';
import { domainNamed } from './lookup.js';
import {
  AuthCodeSchema,
  RegisterDomainBody,
  RenewDomainBody,
  RenewedSchema,
  TestClockBody,
  TestClockSchema,
  TransferDomainBody,
  UpdateDomainBody,
} from './schemas.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseDomainPath as DomainPath, TerseOrgPath as OrgPath } from '../../http/pathParams.js';
import { advanceTestClock } from '../lifecycle/testClock.js';
import { getAuthCode, updateDomainSettings } from './domainSettings.js';
import { IfMatchHeader, setETag } from '../../http/conditional.js';
import { quoteTransfer, transferDomain } from './transferDomain.js';
import { quoteRenewal, renewDomain } from './renewDomain.js';
import { modeOf } from '../../db/modeScope.js';

/** The 200 of a paid route sent `Dry-Run: true`. */
const DRY_RUN_ANSWER = { description: 'Dry run: every check passed; nothing was reserved or started', schema: DryRunSchema };
const NOT_ACTIVE = 'the domain is not `active` (`DOMAIN_STATE_CONFLICT`)';
const notRenewable = 'The domain is neither `active` nor `expired` (in its grace period)';
const REGISTRAR_REFUSED = 'The registrar refused the change (`REGISTRAR_REJECTED`)';
const REGISTRAR_DOWN = 'The registrar is down or did not answer in time (`UPSTREAM_UNAVAILABLE`); nothing changed, retry later';
const NOT_REGISTRABLE =
  'The name is not one label below a sold suffix (`www.example.com`: register `example.com`), or is in the service’s own ACME-DNS zone (`DOMAIN_NAME_NOT_REGISTRABLE`, at `body.name`)';

export function domainRoutes(deps: AppDeps) {
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
        if (header['dry-run']) {
          ctx.body = presentDryRun(await quoteRegistration(props));
          return;
        }
        const operation = await registerDomain(props);
        answerAccepted(ctx, operation);
      },
    }),
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
        if (header['dry-run']) {
          ctx.body = presentDryRun(await quoteTransfer(props));
          return;
        }
        const operation = await transferDomain(props);
        answerAccepted(ctx, operation);
      },
    }),
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
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains',
      operationId: 'listDomains',
      summary: "The organisation's domains of the caller's mode, newest first",
      tags: ['domains'],
      scope: 'domains:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of domains', schema: pageSchema(DomainSchema) } },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listDomainsOfOrg(deps.db, modeOf(principal.livemode), { orgId: path.org_oid, limit: query.limit, after: decodeCursor(query.cursor) });
        ctx.body = toPage(rows, query.limit, (d) => ({ createdAt: d.createdAt, id: d.id }), presentDomain);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}',
      operationId: 'getDomain',
      summary: 'One domain; a domain of another organisation or mode is 404',
      tags: ['domains'],
      scope: 'domains:read',
      request: { path: DomainPath },
      responses: { 200: { description: 'The domain', schema: DomainSchema } },
      handler: async (ctx, { path, principal }) => {
        const domain = await domainNamed(deps.db, modeOf(principal.livemode), path.org_oid, path.domain);
        setETag(ctx, domain.version);
        ctx.body = presentDomain(domain);
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}',
      operationId: 'updateDomain',
      summary: 'Change auto-renew, the transfer lock, the name servers or WHOIS privacy of an active domain',
      description:
        'Lock, name-server and WHOIS privacy changes go to the registrar within the request and are stored only once it agreed: ' +
        'a registrar outage is 503 with `Retry-After` and changes nothing. `If-Match` with an older version: 409 `VERSION_MISMATCH`.',
      tags: ['domains'],
      scope: 'domains:write',
      request: { path: DomainPath, header: IfMatchHeader, body: UpdateDomainBody },
      errors: { 409: `${NOT_ACTIVE}; or \`If-Match\` names an older version (\`VERSION_MISMATCH\`)`, 422: REGISTRAR_REFUSED, 503: REGISTRAR_DOWN },
      responses: { 200: { description: 'The domain as changed', schema: DomainSchema } },
      handler: async (ctx, { path, header, body, principal, requestId }) => {
        const domain = await updateDomainSettings({
          deps,
          principal,
          requestId,
          orgId: path.org_oid,
          name: path.domain,
          expectedVersion: header['if-match'],
          changes: body,
        });
        setETag(ctx, domain.version);
        ctx.body = presentDomain(domain);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/auth-code',
      operationId: 'getAuthCode',
      summary: 'The auth code to transfer the domain out; 409 DOMAIN_LOCKED while transfer-locked',
      tags: ['domains'],
      scope: 'domains:write',
      request: { path: DomainPath },
      responses: { 200: { description: 'The code, or how it was delivered', schema: AuthCodeSchema } },
      errors: { 409: `The domain is transfer-locked: unlock it first (\`DOMAIN_LOCKED\`); or ${NOT_ACTIVE}`, 422: REGISTRAR_REFUSED, 503: REGISTRAR_DOWN },
      handler: async (ctx, { path, principal, requestId }) => {
        const result = await getAuthCode({ deps, principal: principal, orgId: path.org_oid, name: path.domain, requestId });
        ctx.set('Cache-Control', 'no-store');
        ctx.body = result.delivery === 'returned' ? { auth_code: result.authCode, delivery: 'returned' } : { auth_code: null, delivery: 'emailed' };
      },
    }),
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
