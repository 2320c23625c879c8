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
import { withTransaction, type Queryable } from '../../db/pool.js';
import { auditCallerAction, type CallerOfRequest } from '../../audit/auditEvents.js';

type Deps = Pick<AppDeps, 'db' | 'registrars' | 'temporal' | 'config'>;

export interface UpdateDomainSettingsProps {
  deps: Deps;
  principal: Principal;
  orgId: string;
  name: DomainName;
  expectedVersion: number | undefined;
  changes: { auto_renew?: boolean | undefined; locked?: boolean | undefined; nameservers?: string[] | undefined };
  requestId: string;
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
  const updated = await withTransaction(deps.db, async (tx) => {
    const row = await domainsRepo.updateDomainSettings(tx, principal, {
      id: domain.id,
      expectedVersion: domain.version,
      changes: {
        ...(changes.auto_renew !== undefined ? { auto_renew: changes.auto_renew } : {}),
        ...(changes.locked !== undefined ? { locked: changes.locked } : {}),
        ...(changes.nameservers !== undefined ? { nameservers: changes.nameservers } : {}),
      },
    });
    if (row) await auditSettingsChanged(tx, props, domain, row);
    return row;
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
  const domain = await activeDomainNamed(props.deps.db, props.principal, props.orgId, props.name, 'its auth code can be read');
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
