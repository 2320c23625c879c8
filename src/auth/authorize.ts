import type { RouterMiddleware } from '@koa/router';
import type { Db } from '../db/pool.js';
import type { AppState } from '../http/context.js';
import type { OrgRole } from './memberships.js';
import { findMembershipRecordingKey } from './organizations.js';
import type { RecentMemberships } from './recentMemberships.js';
import type { RecordedKeyOrganizations } from './recordedKeyOrganizations.js';
import { DomainNotAllowedError, ForbiddenError, InsufficientScopeError, NotOrgMemberError, RecordNotAllowedError } from './errors.js';
import { domainMatches } from './keyRestrictions.js';
import { patternsNameDomain, recordMatches } from './recordPatterns.js';
import { parseDomainName } from '../domainName.js';
import type { Principal } from './principal.js';
import { requestPrincipal } from './requestPrincipal.js';
import type { Scope } from './scopes.js';

export function requireScope(scope: Scope): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    if (!requestPrincipal(ctx.state).scopes.has(scope)) throw new InsufficientScopeError(scope);
    await next();
  };
}

/**
 * For `/orgs/{org_oid}/…`: the caller must be a member. A missing organisation answers exactly like
 * one the caller does not belong to, so ids cannot be probed. An API key's first request in an
 * organisation on this process also records, in the same statement, that the key acted there: the
 * organisations told of its revocation (src/features/apiKeys/revokeApiKey.ts). After that the
 * membership may come from a read of the last 1.5 s (src/auth/recentMemberships.ts).
 */
export function requireOrgMember(
  deps: { db: Db; memberships: RecentMemberships },
  roles: readonly OrgRole[] | undefined,
  recorded: RecordedKeyOrganizations,
): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const orgId = ctx.params.org_oid ?? '';
    const principal = requestPrincipal(ctx.state);
    const keyId = principal.type === 'api_key' ? principal.keyId : undefined;
    const recording = keyId !== undefined && !recorded.has(keyId, orgId);
    // A key's first request in the organisation records it there; later ones may reuse a recent read.
    const membership = recording
      ? await findMembershipRecordingKey(deps.db, orgId, principal.user.id, keyId)
      : await deps.memberships.get(orgId, principal.user.id);
    if (!membership) throw new NotOrgMemberError();
    if (recording) recorded.add(keyId, orgId);
    if (roles && !roles.includes(membership.role)) {
      throw new ForbiddenError(`This needs the organisation role ${roles.join(' or ')}; yours is ${membership.role}`);
    }
    ctx.state.org = membership;
    await next();
  };
}

/** 403 DOMAIN_NOT_ALLOWED unless the caller's key may act on `name` (canonical punycode); sessions may. */
export function requireDomainAllowed(principal: Principal, name: string): void {
  const allowed = principal.guards?.allowedDomains ?? [];
  if (allowed.length > 0 && !domainMatches(allowed, name)) throw new DomainNotAllowedError(name);
}

/**
 * For routes acting on `{domain}` (renew, settings, auth code, DNS records, …): the key's
 * `allowed_domains` decide before anything else is looked at, and on the routes that act on DNS
 * records its `allowed_records` must name the domain. A name that does not parse matches no
 * pattern, so a restricted key is refused it too.
 */
export function requirePathDomainAllowed(options: { actsOnRecords: boolean }): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    const raw = ctx.params.domain ?? '';
    const parsed = parseDomainName(raw);
    const name = parsed.ok ? parsed.value.name : raw.toLowerCase();
    const principal = requestPrincipal(ctx.state);
    requireDomainAllowed(principal, name);
    if (options.actsOnRecords) requireDomainNamedByRecords(principal, name);
    await next();
  };
}

const recordPatternsOf = (principal: Principal): readonly string[] => principal.guards?.allowedRecords ?? [];

/**
 * A key restricted to `allowed_records` calls only the routes that act on DNS records (their
 * declaration says `actsOnRecords`) and those that only describe the caller (scope `any`: `GET /me`);
 * anything else is 403 RECORD_NOT_ALLOWED.
 */
export function refuseRecordRestrictedKeys(): RouterMiddleware<AppState> {
  return async (ctx, next) => {
    if (recordPatternsOf(requestPrincipal(ctx.state)).length > 0) throw RecordNotAllowedError.forRoute();
    await next();
  };
}

/** 403 RECORD_NOT_ALLOWED unless the key's `allowed_records` (if any) name records of the domain. */
export function requireDomainNamedByRecords(principal: Principal, domain: string): void {
  const patterns = recordPatternsOf(principal);
  if (patterns.length > 0 && !patternsNameDomain(patterns, domain)) throw RecordNotAllowedError.forRecord(`the records of ${domain}`);
}

/** 403 RECORD_NOT_ALLOWED unless the key's `allowed_records` (if any) match the record (its fully qualified name and type). */
export function requireRecordAllowed(principal: Principal, fqdn: string, type: string): void {
  const patterns = recordPatternsOf(principal);
  if (patterns.length > 0 && !recordMatches(patterns, fqdn, type)) throw RecordNotAllowedError.forRecord(`${fqdn} ${type}`);
}
