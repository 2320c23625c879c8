import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { findOrganization, type Plan } from '../../auth/organizations.js';
import { ConflictError } from '../../errors.js';
import { PLAN_MULTIPLIERS } from '../../rateLimit/groups.js';
import { countDnsRecords, lockDnsRecordCount } from './dnsRecords.repository.js';

/**
 * Records one zone may hold on the free plan, scaled by the plan as the rate limits are (pro 50,000,
 * enterprise 200,000): a zone's size is what every later export, replace and zone made afresh at the
 * DNS host costs (docs/api-guide.md, DNS).
 */
export const ZONE_RECORDS_FREE = 10_000;

export function zoneRecordLimit(plan: Plan): number {
  return ZONE_RECORDS_FREE * PLAN_MULTIPLIERS[plan];
}

/** What a route adding records answers past the limit, in its reference. */
export const ZONE_RECORD_LIMIT_REFUSAL =
  `the zone would hold more records than its organisation's plan allows (${zoneRecordLimit('free')} free, ${zoneRecordLimit('pro')} pro, ` +
  `${zoneRecordLimit('enterprise')} enterprise; \`ZONE_RECORD_LIMIT\`)`;

/** 409: the change would leave the zone holding more records than its organisation's plan allows; nothing changed. */
export class ZoneRecordLimitError extends ConflictError {
  constructor(props: { limit: number; plan: Plan; why: string }) {
    super('ZONE_RECORD_LIMIT', `A zone on the ${props.plan} plan holds at most ${props.limit} records: ${props.why}; nothing was changed`);
  }
}

/** The limit of a zone of the organisation, and the plan it comes from. */
export interface ZoneLimit {
  limit: number;
  plan: Plan;
}

export async function zoneLimitOf(db: Queryable, orgId: string): Promise<ZoneLimit> {
  const plan = (await findOrganization(db, orgId))?.plan ?? 'free';
  return { limit: zoneRecordLimit(plan), plan };
}

/** A zone file of more records than the zone may hold is refused as read (an import leaves at least the file's records). */
export function requireFileWithinLimit(zone: ZoneLimit, fileRecords: number): void {
  if (fileRecords > zone.limit) throw new ZoneRecordLimitError({ ...zone, why: 'the file holds more' });
}

/**
 * Refuses a change that would take the domain past its plan's record limit. Only a change that adds
 * records (more creates than deletes) is counted, under a lock held until its transaction ends: two
 * such changes of one domain run one after the other, so they cannot both pass the limit. A change
 * adding none passes even in a zone over the limit (its plan was lowered): it leaves it no larger.
 */
export async function requireRoomForRecords(tx: Queryable, mode: Mode, props: { orgId: string; domainId: string; adding: number }): Promise<void> {
  if (props.adding <= 0) return;
  await lockDnsRecordCount(tx, props.domainId);
  const count = await countDnsRecords(tx, mode, props.domainId);
  const { limit, plan } = await zoneLimitOf(tx, props.orgId);
  if (count + props.adding > limit) {
    throw new ZoneRecordLimitError({ limit, plan, why: `it has ${count}, and this would add ${props.adding}` });
  }
}
