import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { listDomainsOfOrg } from './domains.repository.js';
import { decodeCursor, PaginationQuery, pageSchema, toPage } from '../../http/pagination.js';
import { DomainSchema, presentDomain } from './operation.presenter.js';
import { domainNamed } from './lookup.js';
import { AuthCodeSchema, UpdateDomainBody } from './schemas.js';
// The domains routes publish the terser wording of the shared path parameters (pathParams.ts).
import { TerseDomainPath as DomainPath, TerseOrgPath as OrgPath } from '../../http/pathParams.js';
import { getAuthCode, updateDomainSettings, type DomainWatcher } from './domainSettings.js';
import { IfMatchHeader, setETag } from '../../http/conditional.js';
import { modeOf } from '../../db/modeScope.js';

const NOT_ACTIVE = 'the domain is not `active` (`DOMAIN_STATE_CONFLICT`)';
const REGISTRAR_REFUSED = 'The registrar refused the change (`REGISTRAR_REJECTED`)';
const REGISTRAR_DOWN = 'The registrar is down or did not answer in time (`UPSTREAM_UNAVAILABLE`); nothing changed, retry later';

export type DomainRouteDeps = Pick<PlatformDeps, 'db' | 'registrars' | 'temporal'>;

/**
 * A domain's reads and settings. Its paid operations (register, transfer, renew) are flows
 * (src/flows/); `watcher` is told when a change concerns the domain's lifecycle (src/routes.ts
 * passes the lifecycle's).
 */
export function domainRoutes(deps: DomainRouteDeps, watcher: DomainWatcher) {
  return [
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
          watcher,
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
  ];
}
