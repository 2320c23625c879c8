import type { PlatformDeps } from '../../platformDeps.js';
import * as domainsRepo from './domains.repository.js';
import type { Domain } from './domains.repository.js';
import { VersionMismatchError } from '../../errors.js';
import { activeDomainNamed } from './lookup.js';
import { DomainLockedError, RegistrarRejectedError, withRetryAfter } from '../../registrar/errors.js';
import type { AuthCodeResult, Registrar } from '../../registrar/port.js';
import type { Principal } from '../../auth/principal.js';
import { withTransaction, type Queryable } from '../../db/pool.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';
import type { DomainName } from '../../domainName.js';
import { modeOf } from '../../db/modeScope.js';

type Deps = Pick<PlatformDeps, 'db' | 'registrars'>;

/**
 * Told when a domain changed in a way its lifecycle must look at again (src/features/lifecycle/:
 * watchDomain). Passed in by the wiring, as the lifecycle builds on domains and not the other way.
 */
export interface DomainWatcher {
  domainChanged(domain: Domain, reason: string): Promise<void>;
}

/**
 * How long a client waits before sending a setting again after a registrar outage that named no
 * delay: short, as the change is the caller's to retry and the dashboard waits for it (the SDK backs
 * off further on its own, client/src/transport.ts).
 */
export const REGISTRAR_RETRY_AFTER_SECONDS = 2;

export interface UpdateDomainSettingsProps extends CallerOfRequest {
  deps: Deps;
  watcher: DomainWatcher;
  orgId: string;
  name: DomainName;
  expectedVersion: number | undefined;
  changes: {
    auto_renew?: boolean | undefined;
    locked?: boolean | undefined;
    nameservers?: string[] | undefined;
    whois_privacy?: boolean | undefined;
  };
  requestId: string;
}

/**
 * Auto-renew is ours alone; the transfer lock, the name servers and WHOIS privacy live at the
 * registrar, so those go through it first, within the request (synthetic in test mode), and are
 * stored only once it accepted them: a registrar failure changes nothing here (503 with Retry-After,
 * or 422 when it refused).
 */
export async function updateDomainSettings(props: UpdateDomainSettingsProps): Promise<Domain> {
  const { deps, principal, changes } = props;
  const domain = await activeDomainNamed(deps.db, modeOf(principal.livemode), props.orgId, props.name, 'its settings can be changed');
  if (props.expectedVersion !== undefined && props.expectedVersion !== domain.version) {
    throw new VersionMismatchError({ resource: 'domain', current: domain.version, expected: props.expectedVersion });
  }
  const whoisPrivacy = changes.whois_privacy !== undefined && changes.whois_privacy !== domain.whoisPrivacy ? changes.whois_privacy : undefined;
  const registrar = await deps.registrars.forMode(principal.livemode);
  try {
    if (changes.locked !== undefined && changes.locked !== domain.locked) {
      await registrar.setLock({ name: domain.name, locked: changes.locked });
    }
    if (changes.nameservers !== undefined) {
      await registrar.setNameservers({ name: domain.name, nameservers: changes.nameservers });
    }
    if (whoisPrivacy !== undefined) await setWhoisPrivacyAtRegistrar(registrar, domain.name, whoisPrivacy);
  } catch (err) {
    throw withRetryAfter(err, REGISTRAR_RETRY_AFTER_SECONDS);
  }
  const updated = await withTransaction(deps.db, async (tx) => {
    const row = await domainsRepo.updateDomainSettings(tx, modeOf(principal.livemode), {
      id: domain.id,
      expectedVersion: domain.version,
      changes: {
        ...(changes.auto_renew !== undefined ? { auto_renew: changes.auto_renew } : {}),
        ...(changes.locked !== undefined ? { locked: changes.locked } : {}),
        ...(changes.nameservers !== undefined ? { nameservers: changes.nameservers } : {}),
        ...(whoisPrivacy !== undefined ? { whois_privacy: whoisPrivacy } : {}),
      },
    });
    if (row) await auditSettingsChanged(tx, props, domain, row);
    if (row && whoisPrivacy !== undefined) await auditWhoisPrivacy(tx, props, row, domain.whoisPrivacy);
    return row;
  });
  if (!updated) {
    // Another change came first, but the registrar already switched privacy: our copy follows it.
    if (whoisPrivacy !== undefined) await recordWhoisPrivacy(deps.db, props, domain, whoisPrivacy);
    const current = await domainsRepo.findDomainOfOrg(deps.db, modeOf(principal.livemode), props.orgId, domain.name);
    throw new VersionMismatchError({ resource: 'domain', current: current?.version ?? domain.version, expected: domain.version });
  }
  // Auto-renew decides what the lifecycle does next (renew, or send notices): it looks again.
  if (updated.autoRenew !== domain.autoRenew) {
    await props.watcher.domainChanged(updated, `auto-renew turned ${updated.autoRenew ? 'on' : 'off'}`);
  }
  return updated;
}

/** The registrar's answer must be the state asked for; anything else is a refusal and nothing is stored. */
async function setWhoisPrivacyAtRegistrar(registrar: Registrar, name: string, enabled: boolean): Promise<void> {
  const confirmed = await registrar.setWhoisPrivacy({ name, enabled });
  if (confirmed.enabled !== enabled) {
    throw new RegistrarRejectedError(`The registrar left WHOIS privacy ${confirmed.enabled ? 'on' : 'off'} for ${name}`);
  }
}

/** Stores the state the registrar confirmed whatever the version, with its audit entry. */
async function recordWhoisPrivacy(db: Deps['db'], caller: UpdateDomainSettingsProps, domain: Domain, enabled: boolean): Promise<void> {
  await withTransaction(db, async (tx) => {
    const row = await domainsRepo.updateDomainSettings(tx, modeOf(caller.principal.livemode), { id: domain.id, expectedVersion: undefined, changes: { whois_privacy: enabled } });
    if (row) await auditWhoisPrivacy(tx, caller, row, domain.whoisPrivacy);
  });
}

function auditWhoisPrivacy(tx: Queryable, caller: UpdateDomainSettingsProps, domain: Domain, previous: boolean): Promise<string> {
  return auditCallerAction(tx, caller, {
    action: 'domain.whois_privacy_changed',
    orgId: domain.orgId,
    targetType: 'domain',
    targetId: domain.id,
    data: { livemode: domain.livemode, name: domain.name, whois_privacy: domain.whoisPrivacy, previous, version: domain.version },
  });
}

/** One audit entry per setting the change made different, in the transaction that stores it. */
async function auditSettingsChanged(tx: Queryable, caller: CallerOfRequest & { orgId: string }, before: Domain, after: Domain): Promise<void> {
  const changed = [
    { action: 'domain.auto_renew_changed', from: before.autoRenew, to: after.autoRenew },
    { action: 'domain.lock_changed', from: before.locked, to: after.locked },
    { action: 'domain.nameservers_changed', from: before.nameservers, to: after.nameservers },
  ] as const;
  for (const { action, from, to } of changed) {
    if (JSON.stringify(from) === JSON.stringify(to)) continue;
    await auditCallerAction(tx, caller, { action, orgId: caller.orgId, targetType: 'domain', targetId: after.id, data: { domain: after.name, from, to } });
  }
}

/**
 * The auth code for transferring the domain out; 409 DOMAIN_LOCKED while it is transfer-locked. Who
 * read it is audited: the code lets anyone move the domain away.
 */
export async function getAuthCode(props: { deps: Deps; principal: Principal; orgId: string; name: DomainName; requestId: string }): Promise<AuthCodeResult> {
  const domain = await activeDomainNamed(props.deps.db, modeOf(props.principal.livemode), props.orgId, props.name, 'its auth code can be read');
  if (domain.locked) throw new DomainLockedError(domain.name);
  const result = await (await props.deps.registrars.forMode(props.principal.livemode)).getAuthCode(domain.name);
  await auditCallerAction(props.deps.db, props, {
    action: 'domain.auth_code_read',
    orgId: props.orgId,
    targetType: 'domain',
    targetId: domain.id,
    data: { domain: domain.name, delivery: result.delivery },
  });
  return result;
}
