import { withTransaction } from '../../db/pool.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { RateLimitedError } from '../../errors.js';
import type { Ceiling, SharedCeilings } from '../../rateLimit/sharedCeiling.js';
import { zoneHost } from '../dns/index.js';
import { AcmeDnsCredentialError, applyAtHost, fulldomainOf, type AcmeDnsDeps } from './acmeDns.js';
import { lockAcmeDnsRegistrationById, setAcmeDnsTxtValues, type AcmeDnsRegistrationOfUpdate } from './registrations.repository.js';
import { modeOf } from '../../db/modeScope.js';

/** Two: the challenges of `example.com` and `*.example.com` are answered at one name at once. */
const VALUES_KEPT = 2;
/**
 * A registration's changes less than this after its previous one add no audit entry: the entry of the
 * first says the credential was used, its `txt_updated_at` when last (docs/api-guide.md, Certificates).
 */
const AUDIT_QUIET_MS = 60 * 60 * 1000;
/** What free-plan organisations together may make of the zone's changes a second (docs/operations.md, ACME-DNS budgets). */
const FREE_PLAN_SHARE = 0.25;

export interface AcmeDnsUpdateDeps extends AcmeDnsDeps {
  ceilings: SharedCeilings;
}

/**
 * One change of the shared zone at its host, counted against the zone's ceiling (every organisation
 * together) and, for a free-plan organisation, against the share free ones have together, so that
 * any number of free accounts cannot take the zone from paying ones: 429 past either.
 */
async function takeZoneChange(deps: AcmeDnsUpdateDeps, registration: AcmeDnsRegistrationOfUpdate): Promise<void> {
  if (!deps.acmeDns || !zoneHost(deps.dnsProviders, registration.livemode)) return;
  const zone = `acme_dns:${registration.zone}:${registration.livemode ? 'live' : 'test'}`;
  const perSecond = deps.acmeDns.zoneUpdatesPerSecond;
  const everyone: Ceiling = { name: `${zone}:all`, perSecond };
  const free: Ceiling = { name: `${zone}:free`, perSecond: Math.max(1, Math.floor(perSecond * FREE_PLAN_SHARE)) };
  const full = await deps.ceilings.take(registration.orgPlan === 'free' ? [free, everyone] : [everyone]);
  if (!full) return;
  throw new RateLimitedError({
    group: full === free ? 'ACME-DNS changes to the shared zone by free-plan accounts together' : 'ACME-DNS changes to the shared zone by everyone together',
    perMinute: full.perSecond * 60,
    perSecond: full.perSecond,
    retryAfterSeconds: 1,
  });
}

/**
 * Sets `txt` at the registration's name, keeping the most recent value before it (two in all). A
 * value already there changes nothing and costs nothing more (a retried update must not push out the
 * other challenge). Under the registration's row lock: the host is sent the whole TXT set, then the
 * row is written.
 */
export async function updateAcmeDnsTxt(deps: AcmeDnsUpdateDeps, props: { registration: AcmeDnsRegistrationOfUpdate; txt: string; requestId: string }): Promise<void> {
  // There when the credential was checked, a moment ago: no lock, no host, no audit entry.
  if (props.registration.txtValues.includes(props.txt)) return;
  await takeZoneChange(deps, props.registration);
  await withTransaction(deps.db, async (tx) => {
    const registration = await lockAcmeDnsRegistrationById(tx, modeOf(props.registration.livemode), props.registration.id);
    if (!registration) throw new AcmeDnsCredentialError();
    if (registration.txtValues.includes(props.txt)) return;
    const values = [props.txt, ...registration.txtValues].slice(0, VALUES_KEPT);
    await applyAtHost(deps, registration, values);
    await setAcmeDnsTxtValues(tx, modeOf(registration.livemode), { id: registration.id, values });
    if (registration.txtUpdatedAt && Date.now() - registration.txtUpdatedAt.getTime() < AUDIT_QUIET_MS) return;
    await insertAuditEvent(tx, {
      action: 'acme_dns.updated',
      // The registration's own credential did it: no user or key of the organisation.
      actorUserId: null,
      actorKeyId: null,
      orgId: registration.orgId,
      targetType: 'acme_dns_registration',
      targetId: registration.id,
      livemode: registration.livemode,
      data: { fulldomain: fulldomainOf(registration) },
      requestId: props.requestId,
    });
  });
}
