import type pg from 'pg';
import type { Db } from '../../db/pool.js';
import { withTransaction } from '../../db/pool.js';
import { deleteDnsRecordsOfDomain } from '../dns/index.js';
import { findDomainById, lockDomain, unlinkDomainContacts, type Domain, findOpenRenewal, changeDomainStatus } from '../domains/index.js';
import type { DomainLifecycleState, LifecycleStepOutcome } from './domainLifecycle.contract.js';
import { recordNotice } from './notices.js';
import { lifecycleNowOf } from './clock.js';
import { modeOf, type Mode } from '../../db/modeScope.js';


export interface LifecycleStepProps {
  db: Db;
  domainId: string;
  livemode: boolean;
  /** The term the workflow is watching; a domain whose expiry moved since is past this step. */
  cycleExpiresAt: string;
}

export async function readLifecycleState(db: Db, mode: Mode, domainId: string): Promise<DomainLifecycleState | null> {
  const domain = await findDomainById(db, mode, domainId);
  if (!domain) return null;
  return {
    status: domain.status,
    expiresAt: domain.expiresAt?.toISOString() ?? null,
    autoRenew: domain.autoRenew,
    clockOffsetDays: domain.clockOffsetDays,
    renewalOpen: (await findOpenRenewal(db, mode, domainId)) !== undefined,
  };
}

const skipped = (detail: string): LifecycleStepOutcome => ({ outcome: 'skipped', noticeId: null, detail });

/**
 * Runs `work` with the domain locked, if it is still in `status` on the watched term and no renewal
 * runs (a renewal holds the same lock while it starts, so the two take turns).
 */
async function onWatchedTerm(
  props: LifecycleStepProps,
  status: Domain['status'],
  work: (tx: pg.PoolClient, domain: Domain) => Promise<LifecycleStepOutcome>,
): Promise<LifecycleStepOutcome> {
  const mode = modeOf(props.livemode);
  return withTransaction(props.db, async (tx) => {
    const domain = await lockDomain(tx, mode, props.domainId);
    if (!domain) return skipped('the domain is gone');
    if (domain.expiresAt?.toISOString() !== props.cycleExpiresAt) return skipped('the domain was renewed meanwhile');
    if (domain.status !== status) return skipped(`the domain is ${domain.status}`);
    if (await findOpenRenewal(tx, mode, domain.id)) return { outcome: 'busy', noticeId: null, detail: 'a renewal is running' };
    return work(tx, domain);
  });
}

/** "Expires in N days" for a domain without auto-renew: its notice and event, once. */
export function recordExpiringNotice(props: LifecycleStepProps & { at: string; daysLeft: number }): Promise<LifecycleStepOutcome> {
  return onWatchedTerm(props, 'active', async (tx, domain) => {
    if (domain.autoRenew) return skipped('auto-renew is on');
    const noticeId = await recordNotice({
      tx,
      domain,
      kind: 'expiring',
      termExpiresAt: props.cycleExpiresAt,
      qualifier: `${props.daysLeft}d`,
      at: lifecycleNowOf(domain),
      facts: { daysLeft: props.daysLeft },
    });
    return { outcome: 'done', noticeId };
  });
}

/** `active` → `expired` once the term has passed (by the domain's own clock), with its event and notice. */
export function expireDomain(props: LifecycleStepProps & { graceMs: number }): Promise<LifecycleStepOutcome> {
  return onWatchedTerm(props, 'active', async (tx, domain) => {
    const now = lifecycleNowOf(domain);
    if (now.getTime() < Date.parse(props.cycleExpiresAt)) return { outcome: 'busy', noticeId: null, detail: 'not expired yet' };
    const expired = await changeDomainStatus({ db: tx, mode: modeOf(props.livemode), domainId: domain.id, to: 'expired' });
    const graceEndsAt = new Date(Date.parse(props.cycleExpiresAt) + props.graceMs).toISOString();
    const noticeId = await recordNotice({ tx, domain: expired, kind: 'expired', termExpiresAt: props.cycleExpiresAt, at: now, facts: { graceEndsAt } });
    return { outcome: 'done', noticeId };
  });
}

/**
 * `expired` → `deleted` once the grace period has passed: the DNS records and contact links go in
 * the same transaction, the name is free again (the name indexes ignore deleted domains).
 * The live zone at the DNS provider is removed by the workflow's next step.
 */
export function deleteExpiredDomain(props: LifecycleStepProps & { graceMs: number }): Promise<LifecycleStepOutcome> {
  return onWatchedTerm(props, 'expired', async (tx, domain) => {
    const now = lifecycleNowOf(domain);
    if (now.getTime() < Date.parse(props.cycleExpiresAt) + props.graceMs) return { outcome: 'busy', noticeId: null, detail: 'grace period not over' };
    const mode = modeOf(props.livemode);
    const deleted = await changeDomainStatus({ db: tx, mode, domainId: domain.id, to: 'deleted' });
    await deleteDnsRecordsOfDomain(tx, mode, domain.id);
    await unlinkDomainContacts(tx, mode, domain.id);
    const noticeId = await recordNotice({ tx, domain: deleted, kind: 'deleted', termExpiresAt: props.cycleExpiresAt, at: now });
    return { outcome: 'done', noticeId };
  });
}
