import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { withTransaction, type Db } from '../../db/pool.js';
import type { Config } from '../../config.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';
import { ApiError, ConflictError, NotFoundError } from '../../errors.js';
import { ForbiddenError } from '../../auth/errors.js';
import { newId, randomBase62 } from '../../ids.js';
import { addressAllowed } from '../../auth/keyRestrictions.js';
import { type DnsProvider, type DnsProviders, type RRsetChange, DnsZoneNotFoundError, zoneHost } from '../dns/index.js';
import { allowfromOfCaller, registrationsCallerMaySee } from './callerRestrictions.js';
import {
  deleteAcmeDnsRegistration,
  findAcmeDnsRegistrationByUsername,
  insertAcmeDnsRegistration,
  lockAcmeDnsRegistration,
  lockAndCountAcmeDnsRegistrations,
  type AcmeDnsRegistration,
  type AcmeDnsRegistrationOfUpdate,
} from './registrations.repository.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * The ACME-DNS protocol (joohoi/acme-dns; docs/certificates.md): a registration is a name
 * `<subdomain>.<ACME_DNS_ZONE>` and a credential (user name, password) that may set its TXT
 * values and nothing else. The customer points `_acme-challenge.<their domain>` at it with a CNAME,
 * wherever that domain is hosted, and hands the credential to their ACME client. Registrations
 * belong to an organisation and a mode; live ones are served by the live DNS provider, test ones by
 * the test-mode host if there is one (else only stored, as test-mode DNS is).
 */
export interface AcmeDnsDeps {
  db: Db;
  dnsProviders: DnsProviders;
  keyHashSecret: string;
  acmeDns: Config['acmeDns'];
}

/** Each registration is a credential and a name: enough for every domain and wildcard an organisation certifies. */
export const MAX_REGISTRATIONS_PER_ORG_AND_MODE = 100;
/** Seconds: a resolver must never answer a value it read before the update (acme-dns serves 1 too). */
const TXT_TTL = 1;

export class AcmeDnsNotOfferedError extends NotFoundError {
  constructor() {
    super('ACME-DNS is not offered by this service (ACME_DNS_ZONE is not set)');
  }
}

export class AcmeDnsRegistrationLimitError extends ConflictError {
  constructor() {
    super(
      'ACME_DNS_REGISTRATION_LIMIT',
      `This organisation already has ${MAX_REGISTRATIONS_PER_ORG_AND_MODE} ACME-DNS registrations in this mode, the most it may have; delete one it no longer uses first`,
    );
  }
}

/** 401 for an update whose X-Api-User and X-Api-Key name no registration. */
export class AcmeDnsCredentialError extends ApiError {
  constructor() {
    super('INVALID_TOKEN', 'X-Api-User and X-Api-Key do not name an ACME-DNS registration');
  }
}

/** 403 for an update of a registration whose maker has left its organisation: it went with their access. */
export class AcmeDnsCreatorGoneError extends ForbiddenError {
  constructor() {
    super(
      'The person who made this ACME-DNS registration is no longer a member of its organisation, so it no longer takes updates; a member registers a new one (and points the CNAME at it) or deletes it',
    );
  }
}

export const fulldomainOf = (registration: Pick<AcmeDnsRegistration, 'subdomain' | 'zone'>) => `${registration.subdomain}.${registration.zone}`;

function passwordHash(secret: string, password: string): Buffer {
  return createHmac('sha256', secret).update(`acme-dns|${password}`).digest();
}

/** The DNS host of the mode's zones (none in test mode without a test host), its ACME-DNS zone made when missing. */
async function servingHost(deps: AcmeDnsDeps, livemode: boolean, zone: string): Promise<DnsProvider | undefined> {
  const host = zoneHost(deps.dnsProviders, livemode);
  await host?.createZone({ zone, nameservers: deps.acmeDns?.nameservers ?? [] });
  return host;
}

/**
 * A new registration in the caller's organisation and mode; the password is answered this once and
 * only its HMAC kept. At most MAX_REGISTRATIONS_PER_ORG_AND_MODE (409 ACME_DNS_REGISTRATION_LIMIT).
 */
export async function registerAcmeDns(
  deps: AcmeDnsDeps,
  props: CallerOfRequest & { orgId: string; allowfrom: string[] },
): Promise<{ registration: AcmeDnsRegistration; password: string }> {
  const config = deps.acmeDns;
  if (!config) throw new AcmeDnsNotOfferedError();
  const mode = modeOf(props.principal.livemode);
  const allowfrom = allowfromOfCaller(props.principal, props.allowfrom);
  // The zone exists before any name is handed out in it; a provider that is down refuses the registration.
  await servingHost(deps, mode.livemode, config.zone);
  const password = randomBase62(40);
  const registration = await withTransaction(deps.db, async (tx) => {
    if ((await lockAndCountAcmeDnsRegistrations(tx, mode, props.orgId)) >= MAX_REGISTRATIONS_PER_ORG_AND_MODE) throw new AcmeDnsRegistrationLimitError();
    const created = await insertAcmeDnsRegistration(tx, mode, {
      id: newId('acd'),
      orgId: props.orgId,
      username: randomUUID(),
      passwordHash: passwordHash(deps.keyHashSecret, password),
      subdomain: randomUUID(),
      zone: config.zone,
      allowfrom,
      createdBy: props.principal.user.id,
    });
    await auditCallerAction(tx, props, {
      action: 'acme_dns.registered',
      orgId: props.orgId,
      targetType: 'acme_dns_registration',
      targetId: created.id,
      data: { fulldomain: fulldomainOf(created), allowfrom: created.allowfrom },
    });
    return created;
  });
  return { registration, password };
}

/**
 * The registration whose credential this is, if the update may come from `address` (its
 * `allowfrom`; 403 IP_NOT_ALLOWED otherwise) and its maker is still a member of its organisation
 * (403 otherwise). Unknown user names and wrong passwords are the same 401, and cost one look-up by
 * user name: the caller counts each refusal against the address.
 */
export async function verifyAcmeDnsCredential(
  deps: AcmeDnsDeps,
  props: { username: string; password: string; address: string },
): Promise<AcmeDnsRegistrationOfUpdate> {
  if (!deps.acmeDns) throw new AcmeDnsNotOfferedError();
  // Shapes first: a look-alike never reaches the database.
  if (!/^[0-9a-f-]{36}$/i.test(props.username) || props.password.length !== 40) throw new AcmeDnsCredentialError();
  const registration = await findAcmeDnsRegistrationByUsername(deps.db, props.username.toLowerCase());
  const given = passwordHash(deps.keyHashSecret, props.password);
  if (!registration || !timingSafeEqual(given, registration.passwordHash)) throw new AcmeDnsCredentialError();
  if (!addressAllowed(registration.allowfrom, props.address)) {
    throw new ApiError('IP_NOT_ALLOWED', `This ACME-DNS registration may not be updated from ${props.address}; see its allowfrom`);
  }
  if (!registration.creatorIsMember) throw new AcmeDnsCreatorGoneError();
  return registration;
}

function txtChange(registration: AcmeDnsRegistration, values: string[]): RRsetChange {
  if (values.length === 0) return { changetype: 'DELETE', name: registration.subdomain, type: 'TXT' };
  return { changetype: 'REPLACE', name: registration.subdomain, type: 'TXT', ttl: TXT_TTL, records: values.map((content) => ({ type: 'TXT', content, priority: null })) };
}

export async function applyAtHost(deps: AcmeDnsDeps, registration: AcmeDnsRegistration, values: string[]): Promise<void> {
  const host = zoneHost(deps.dnsProviders, registration.livemode);
  if (!host) return;
  try {
    await host.applyChanges(registration.zone, [txtChange(registration, values)]);
  } catch (err) {
    if (!(err instanceof DnsZoneNotFoundError)) throw err;
    // Removed at the host behind our back: made again, with this registration's values.
    if (values.length === 0) return;
    await servingHost(deps, registration.livemode, registration.zone);
    await host.applyChanges(registration.zone, [txtChange(registration, values)]);
  }
}

/** Deletes the registration and its TXT values at the host (the host first: on its failure nothing changes). */
export async function removeAcmeDnsRegistration(deps: AcmeDnsDeps, props: CallerOfRequest & { orgId: string; id: string }): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    const registration = await lockAcmeDnsRegistration(tx, modeOf(props.principal.livemode), { orgId: props.orgId, id: props.id, allowedIps: registrationsCallerMaySee(props.principal) });
    if (!registration) throw new NotFoundError('ACME-DNS registration not found');
    await applyAtHost(deps, registration, []);
    await deleteAcmeDnsRegistration(tx, modeOf(registration.livemode), registration.id);
    await auditCallerAction(tx, props, {
      action: 'acme_dns.deleted',
      orgId: props.orgId,
      targetType: 'acme_dns_registration',
      targetId: registration.id,
      data: { fulldomain: fulldomainOf(registration) },
    });
  });
}
