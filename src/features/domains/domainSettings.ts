import type { AppDeps } from '../../deps.js';
import * as domainsRepo from './domains.repository.js';
import type { Domain } from './domains.repository.js';
import { VersionMismatchError } from '../../errors.js';
import { activeDomainNamed } from './lookup.js';
import { DomainLockedError } from '../../registrar/errors.js';
import type { AuthCodeResult } from '../../registrar/port.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import { watchDomain } from '../lifecycle/watch.js';

type Deps = Pick<AppDeps, 'db' | 'registrars' | 'temporal' | 'config'>;

export interface UpdateDomainSettingsProps {
  deps: Deps;
  principal: Principal;
  orgId: string;
  name: DomainName;
  expectedVersion: number | undefined;
  changes: { auto_renew?: boolean | undefined; locked?: boolean | undefined; nameservers?: string[] | undefined };
}

/**
 * Auto-renew is ours alone; the transfer lock and the name servers live at the registrar, so those
 * go through it first (synthetic in test mode) and are stored only once it accepted them.
 */
export async function updateDomainSettings(props: UpdateDomainSettingsProps): Promise<Domain> {
  const { deps, principal, changes } = props;
  const domain = await activeDomainNamed(deps.db, principal, props.orgId, props.name, 'its settings can be changed');
  if (props.expectedVersion !== undefined && props.expectedVersion !== domain.version) {
    throw new VersionMismatchError({ resource: 'domain', current: domain.version, expected: props.expectedVersion });
  }
  const registrar = await deps.registrars.forMode(principal.livemode);
  if (changes.locked !== undefined && changes.locked !== domain.locked) {
    await registrar.setLock({ name: domain.name, locked: changes.locked });
  }
  if (changes.nameservers !== undefined) {
    await registrar.setNameservers({ name: domain.name, nameservers: changes.nameservers });
  }
  const updated = await domainsRepo.updateDomainSettings(deps.db, principal, {
    id: domain.id,
    expectedVersion: domain.version,
    changes: {
      ...(changes.auto_renew !== undefined ? { auto_renew: changes.auto_renew } : {}),
      ...(changes.locked !== undefined ? { locked: changes.locked } : {}),
      ...(changes.nameservers !== undefined ? { nameservers: changes.nameservers } : {}),
    },
  });
  if (!updated) {
    const current = await domainsRepo.findDomainOfOrg(deps.db, principal, props.orgId, domain.name);
    throw new VersionMismatchError({ resource: 'domain', current: current?.version ?? domain.version, expected: domain.version });
  }
  // Auto-renew decides what the lifecycle does next (renew, or send notices): it looks again.
  if (updated.autoRenew !== domain.autoRenew) {
    await watchDomain({ temporal: deps.temporal, config: deps.config, domain: updated, reason: `auto-renew turned ${updated.autoRenew ? 'on' : 'off'}` });
  }
  return updated;
}

/** The auth code for transferring the domain out; 409 DOMAIN_LOCKED while it is transfer-locked. */
export async function getAuthCode(props: { deps: Deps; principal: Principal; orgId: string; name: DomainName }): Promise<AuthCodeResult> {
  const domain = await activeDomainNamed(props.deps.db, props.principal, props.orgId, props.name, 'its auth code can be read');
  if (domain.locked) throw new DomainLockedError(domain.name);
  return (await props.deps.registrars.forMode(props.principal.livemode)).getAuthCode(domain.name);
}
