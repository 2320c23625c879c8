import type { Queryable } from '../../db/pool.js';
import { ModeScopedTable, type Mode } from '../../db/modeScope.js';

/** What a lifecycle notice is about (docs/api-guide.md, Operations and workflows); each also has an event of its own. */
export type DomainNoticeKind = 'expiring' | 'auto_renew_failed' | 'expired' | 'deleted';

/** Fixed when the notice is recorded, so a retried mail says the same thing to the same people. */
export interface DomainNoticeFacts {
  orgId: string;
  name: string;
  expiresAt: string;
  /** The lifecycle's "now" when the notice was recorded (real time plus the domain's test clock). */
  at: string;
  recipients: { email: string; name: string | null }[];
  /** `expiring`: days left; `auto_renew_failed`: why; `expired`: when the grace period ends. */
  daysLeft?: number;
  reason?: string;
  graceEndsAt?: string;
}

export interface DomainNotice {
  id: string;
  domainId: string;
  livemode: boolean;
  kind: DomainNoticeKind;
  eventId: string;
  facts: DomainNoticeFacts;
  createdAt: Date;
  mailedAt: Date | null;
}

const notices = new ModeScopedTable<DomainNotice>(
  'domain_notices',
  `id, domain_id AS "domainId", livemode, kind, event_id AS "eventId", facts, created_at AS "createdAt", mailed_at AS "mailedAt"`,
);

/** Records a notice once: a second insert of the same id changes nothing and returns the first. */
export async function recordDomainNoticeRow(
  db: Queryable,
  mode: Mode,
  notice: Pick<DomainNotice, 'id' | 'domainId' | 'kind' | 'eventId' | 'facts'>,
): Promise<{ notice: DomainNotice; recorded: boolean }> {
  const inserted = await notices.insertIfAbsent(db, mode, {
    id: notice.id,
    domain_id: notice.domainId,
    kind: notice.kind,
    event_id: notice.eventId,
    facts: JSON.stringify(notice.facts),
  });
  if (inserted) return { notice: inserted, recorded: true };
  const existing = await findDomainNotice(db, mode, notice.id);
  if (!existing) throw new Error(`notice ${notice.id} exists in the other mode`);
  return { notice: existing, recorded: false };
}

export function findDomainNotice(db: Queryable, mode: Mode, id: string): Promise<DomainNotice | undefined> {
  return notices.findOne(db, mode, 'id = $2', [id]);
}

export async function markDomainNoticeMailed(db: Queryable, mode: Mode, id: string): Promise<void> {
  await notices.update(db, mode, 'id = $2 AND mailed_at IS NULL', [id], {}, { now: ['mailed_at'] });
}

export function listDomainNotices(db: Queryable, mode: Mode, domainId: string): Promise<DomainNotice[]> {
  return notices.select(db, mode, 'domain_id = $2', [domainId], 'ORDER BY created_at, id');
}
