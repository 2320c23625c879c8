import type { Queryable } from '../../db/pool.js';
import { type Domain, presentDomain } from '../domains/index.js';
import { recordDomainNoticeRow, type DomainNoticeFacts, type DomainNoticeKind } from './domainNotices.repository.js';
import { type EventType, emitEvent } from '../webhooks/index.js';
import { listOwnerAndAdminEmails } from '../../auth/memberships.js';
import { derivedId } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';

const EVENT_OF: Record<DomainNoticeKind, EventType> = {
  expiring: 'domain.expiring',
  auto_renew_failed: 'domain.auto_renew_failed',
  expired: 'domain.expired',
  deleted: 'domain.deleted',
};

export interface RecordNoticeProps {
  /** The transaction of the change the notice reports (expiry, deletion), or of the notice alone. */
  tx: Queryable;
  domain: Domain;
  kind: DomainNoticeKind;
  /** The term the notice is about: with `kind` and `qualifier`, it names the notice for good. */
  termExpiresAt: string;
  /** Tells apart notices of one kind and term: the days left, or the auto-renew attempt's time. */
  qualifier?: string;
  at: Date;
  facts?: Pick<DomainNoticeFacts, 'daysLeft' | 'reason' | 'graceEndsAt'>;
}

/**
 * Records a lifecycle notice and its event (docs/api-guide.md, Webhooks and events) in the caller's transaction. Its id and
 * the event's derive from the domain, term, kind and qualifier, so a retried or replayed step, or a
 * test clock moved past the same point twice, finds the notice it recorded before. Returns its id.
 */
export async function recordNotice(props: RecordNoticeProps): Promise<string> {
  const { domain } = props;
  const seed = ['domain-notice', domain.id, props.termExpiresAt, props.kind, props.qualifier ?? ''].join('|');
  const eventId = await emitEvent({
    db: props.tx,
    orgId: domain.orgId,
    livemode: domain.livemode,
    type: EVENT_OF[props.kind],
    object: presentDomain(domain),
    dedupeSeed: seed,
  });
  const facts: DomainNoticeFacts = {
    orgId: domain.orgId,
    name: domain.name,
    expiresAt: props.termExpiresAt,
    at: props.at.toISOString(),
    recipients: await listOwnerAndAdminEmails(props.tx, domain.orgId),
    ...props.facts,
  };
  const { notice } = await recordDomainNoticeRow(props.tx, modeOf(domain.livemode), { id: derivedId('ntc', seed), domainId: domain.id, kind: props.kind, eventId, facts });
  return notice.id;
}
