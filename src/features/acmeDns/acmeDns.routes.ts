import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { AppContext } from '../../http/context.js';
import { CreatedHeaders } from '../../http/conditional.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { clientAddress } from '../../http/clientAddress.js';
import { consumeAddressPool } from '../../rateLimit/addressLimits.js';
import { SharedCeilings } from '../../rateLimit/sharedCeiling.js';
import { ApiError } from '../../errors.js';
import { ForbiddenError } from '../../auth/errors.js';
import { OrgPath } from '../../http/pathParams.js';
import { MAX_REGISTRATIONS_PER_ORG_AND_MODE, registerAcmeDns, removeAcmeDnsRegistration, verifyAcmeDnsCredential } from './acmeDns.js';
import { AcmeDnsCredentialsSchema, presentAcmeDnsCredentials, presentAcmeDnsRegistration } from './acmeDns.presenter.js';
import { registrationsCallerMaySee } from './callerRestrictions.js';
import { listAcmeDnsRegistrations, type AcmeDnsRegistrationOfUpdate } from './registrations.repository.js';
import { consumeUpdateBudgets } from './updateBudgets.js';
import { updateAcmeDnsTxt, type AcmeDnsUpdateDeps } from './updateTxt.js';
import { RegisterBody, RegistrationPage, RegistrationPath, UpdateBody, UpdatedSchema, UpdateHeaders } from './schemas.js';
import { modeOf } from '../../db/modeScope.js';

const BASE = '/api/v1/orgs/{org_oid}/acme-dns';
const NOT_OFFERED = 'ACME-DNS is not offered by this service: `ACME_DNS_ZONE` is not set (`NOT_FOUND`)';
const PROVIDER = {
  502: 'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed',
  503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed, retry later',
};
/** An update's body is `{subdomain, txt}`: about a hundred bytes, with room for whitespace. */
const UPDATE_BODY_LIMIT_BYTES = 1024;
const RESTRICTED_KEYS =
  'A key limited to some domains or records may not use these routes (ACME-DNS registrations are tied to no domain); ' +
  'one limited to some addresses makes registrations whose `allowfrom` lies within them (its own addresses when none is given) ' +
  'and sees and deletes only those.';
const ABOUT =
  'The ACME-DNS protocol (joohoi/acme-dns), for domains hosted anywhere: point `_acme-challenge.<your domain>` at the ' +
  'registration’s `fulldomain` with a CNAME, and give the credentials to cert-manager’s `acmeDNS` solver, lego’s ' +
  '`acme-dns` provider (`ACME_DNS_API_BASE=https://<this api>/api/v1/acme-dns`) or the certbot hook (docs/certificates.md).';

export type AcmeDnsRouteDeps = Pick<PlatformDeps, 'db' | 'config' | 'keyHashSecret' | 'redis' | 'rateLimiter'> & Pick<AcmeDnsUpdateDeps, 'dnsProviders'>;

export function acmeDnsRoutes(deps: AcmeDnsRouteDeps) {
  const service: AcmeDnsUpdateDeps = {
    db: deps.db,
    dnsProviders: deps.dnsProviders,
    keyHashSecret: deps.keyHashSecret,
    acmeDns: deps.config.acmeDns,
    ceilings: new SharedCeilings(deps.redis),
  };
  // The registration whose credential an update carries, as verifyHeaders found it before the body was read.
  const verified = new WeakMap<AppContext, AcmeDnsRegistrationOfUpdate>();
  return [
    defineRoute({
      method: 'post',
      path: `${BASE}/register`,
      operationId: 'registerAcmeDns',
      summary: 'Register an ACME-DNS name and credential; the password is shown once',
      description:
        `${ABOUT} The registration belongs to the organisation and the caller’s mode; an organisation has at most ` +
        `${MAX_REGISTRATIONS_PER_ORG_AND_MODE} per mode. The body may be left out (no \`allowfrom\`). ${RESTRICTED_KEYS}`,
      tags: ['certificates'],
      scope: 'dns:write',
      request: { path: OrgPath, body: RegisterBody },
      responses: { 201: { description: 'Registered: store `password` now', schema: AcmeDnsCredentialsSchema, headers: CreatedHeaders } },
      errors: {
        403: 'The key is limited to some domains (`DOMAIN_NOT_ALLOWED`) or records (`RECORD_NOT_ALLOWED`), or `allowfrom` is not within its `allowed_ips` (`FORBIDDEN`)',
        404: NOT_OFFERED,
        409: `The organisation already has ${MAX_REGISTRATIONS_PER_ORG_AND_MODE} registrations in this mode (\`ACME_DNS_REGISTRATION_LIMIT\`); delete one first`,
        ...PROVIDER,
      },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const { registration, password } = await registerAcmeDns(service, { principal, requestId, orgId: path.org_oid, allowfrom: body.allowfrom });
        ctx.status = 201;
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Location', `${BASE.replace('{org_oid}', path.org_oid)}/registrations/${registration.id}`);
        ctx.body = presentAcmeDnsCredentials(registration, password);
      },
    }),
    defineRoute({
      method: 'get',
      path: `${BASE}/registrations`,
      operationId: 'listAcmeDnsRegistrations',
      summary: "The organisation's ACME-DNS registrations in the caller's mode, newest first (never their passwords)",
      description: RESTRICTED_KEYS,
      tags: ['certificates'],
      scope: 'dns:read',
      request: { path: OrgPath, query: PaginationQuery },
      responses: { 200: { description: 'A page of registrations', schema: RegistrationPage } },
      errors: { 403: 'The key is limited to some domains (`DOMAIN_NOT_ALLOWED`) or records (`RECORD_NOT_ALLOWED`)' },
      handler: async (ctx, { path, query, principal }) => {
        const rows = await listAcmeDnsRegistrations(deps.db, modeOf(principal.livemode), {
          orgId: path.org_oid,
          allowedIps: registrationsCallerMaySee(principal),
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (r) => ({ createdAt: r.createdAt, id: r.id }), presentAcmeDnsRegistration);
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${BASE}/registrations/{registration_id}`,
      operationId: 'deleteAcmeDnsRegistration',
      summary: 'Delete an ACME-DNS registration: its credential stops working and its TXT values are removed',
      description: RESTRICTED_KEYS,
      tags: ['certificates'],
      scope: 'dns:write',
      request: { path: RegistrationPath },
      responses: { 204: { description: 'Deleted' } },
      errors: {
        403: 'The key is limited to some domains (`DOMAIN_NOT_ALLOWED`) or records (`RECORD_NOT_ALLOWED`)',
        404: 'No such registration in this organisation and mode, or not one this key (limited to some addresses) could have made (`NOT_FOUND`)',
        ...PROVIDER,
      },
      handler: async (ctx, { path, principal, requestId }) => {
        await removeAcmeDnsRegistration(service, { principal, requestId, orgId: path.org_oid, id: path.registration_id });
        ctx.status = 204;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/acme-dns/update',
      operationId: 'updateAcmeDns',
      summary: 'Set an ACME-DNS TXT value (acme-dns `/update`), keeping the one before it',
      description:
        'Called by ACME clients with a registration’s credential in `X-Api-User` and `X-Api-Key` (no bearer token), checked ' +
        'before the body is read, as are the update budgets: a wrong credential, an address outside the registration’s ' +
        '`allowfrom` (403 `IP_NOT_ALLOWED`), a registration whose maker has left its organisation (403) or a service without ' +
        'ACME-DNS (404) counts against the client address’s failed-authentication limit (past it, 429). Updates are counted per ' +
        'registration, per organisation and mode (all its registrations together, scaled by its plan) and per person who made ' +
        'the registrations; changes of the shared zone also against its ceiling (429 `RATE_LIMITED` with `Retry-After` past ' +
        `any). The body is at most ${UPDATE_BODY_LIMIT_BYTES} bytes. ` +
        '`txt` becomes the newest of the two values served at `fulldomain` (with a 1-second TTL); the oldest goes. Sending a value ' +
        `already there changes nothing. Field names match in any case (\`SubDomain\`, \`Txt\`), as acme-dns’s own. ${ABOUT}`,
      tags: ['certificates'],
      scope: 'public',
      request: { header: UpdateHeaders, body: UpdateBody },
      bodyLimitBytes: UPDATE_BODY_LIMIT_BYTES,
      countsOwnRequests: true,
      verifyHeaders: async (ctx) => {
        let registration: AcmeDnsRegistrationOfUpdate;
        try {
          registration = await verifyAcmeDnsCredential(service, {
            username: ctx.get('x-api-user'),
            password: ctx.get('x-api-key'),
            address: clientAddress(ctx, deps.config.trustProxy),
          });
        } catch (err) {
          // Every refusal of the credential, the 404 of a service without ACME-DNS included, costs the address.
          if (err instanceof ApiError) await consumeAddressPool(deps, ctx, 'auth_failure');
          throw err;
        }
        await consumeUpdateBudgets(deps, ctx, registration);
        verified.set(ctx, registration);
      },
      responses: { 200: { description: 'Set', schema: UpdatedSchema } },
      errors: {
        401: 'X-Api-User and X-Api-Key name no registration (`INVALID_TOKEN`)',
        403: 'The client address is outside the registration’s `allowfrom` (`IP_NOT_ALLOWED`); `subdomain` is not the registration’s, or the person who made the registration is no longer a member of its organisation (`FORBIDDEN`)',
        404: NOT_OFFERED,
        ...PROVIDER,
      },
      handler: async (ctx, { body, requestId }) => {
        const registration = verified.get(ctx)!;
        if (body.subdomain.toLowerCase() !== registration.subdomain) throw new ForbiddenError('These credentials update their own subdomain only');
        await updateAcmeDnsTxt(service, { registration, txt: body.txt, requestId });
        ctx.body = { txt: body.txt };
      },
    }),
  ];
}
