import type { Queryable } from '../db/pool.js';
import { findMembershipWithOrganization } from './organizations.js';
import { RecentReads } from '../recentReads.js';

/**
 * How long one process reuses a caller's membership of an organisation for the routes under it.
 * Counted from when the read began, so a removal or role change made through another api process
 * shows within this bound (inside the 2 s docs/operations.md promises for membership changes); one
 * made through this process forgets the pair at once.
 */
export const MEMBERSHIP_TTL_MS = 1_500;

type Found = Awaited<ReturnType<typeof findMembershipWithOrganization>>;

/**
 * Memberships read for the organisation routes (requireOrgMember), so a caller's requests in an
 * organisation do not each pay a round trip for it. Only a membership found is kept: a caller who is
 * not a member is read again every time, so one who joins is let in at once. Concurrent requests
 * share a read.
 */
export class RecentMemberships {
  private readonly reads: RecentReads<Found>;

  constructor(
    private readonly db: Queryable,
    now: () => number = Date.now,
  ) {
    this.reads = new RecentReads(MEMBERSHIP_TTL_MS, { now, keep: (found) => found !== undefined });
  }

  get(orgId: string, userId: string): Promise<Found> {
    return this.reads.get(`${orgId}\n${userId}`, () => findMembershipWithOrganization(this.db, orgId, userId));
  }

  /** Call once a removal or role change of the member has committed: the next request reads again. */
  forget(orgId: string, userId: string): void {
    this.reads.forget(`${orgId}\n${userId}`);
  }
}
