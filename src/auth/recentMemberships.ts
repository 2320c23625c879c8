import type { Queryable } from '../db/pool.js';
import { findMembershipWithOrganization, type Organization } from './organizations.js';
import type { OrgRole } from './memberships.js';

/**
 * How long one process reuses a caller's membership of an organisation for the routes under it.
 * Counted from when the read began, so a removal or role change made through another api process
 * shows within this bound (inside the 2 s docs/operations.md promises for membership changes); one
 * made through this process forgets the pair at once.
 */
export const MEMBERSHIP_TTL_MS = 1_500;
const MAX_ENTRIES = 10_000;

export type OrgMembership = { role: OrgRole; org: Organization };

/**
 * Memberships read for the organisation routes (requireOrgMember), so a caller's requests in an
 * organisation do not each pay a round trip for it. Only a membership found is kept: a caller who is
 * not a member is read again every time, so one who joins is let in at once. Concurrent requests
 * share a read.
 */
export class RecentMemberships {
  private readonly entries = new Map<string, { membership: Promise<OrgMembership | undefined>; expiresAt: number }>();

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = Date.now,
  ) {}

  get(orgId: string, userId: string): Promise<OrgMembership | undefined> {
    const key = `${orgId}\n${userId}`;
    const at = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > at) return hit.membership;
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    const entry = { membership: findMembershipWithOrganization(this.db, orgId, userId), expiresAt: at + MEMBERSHIP_TTL_MS };
    this.entries.set(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    entry.membership.then((found) => {
      if (!found) drop();
    }, drop);
    return entry.membership;
  }

  /** Call once a removal or role change of the member has committed: the next request reads again. */
  forget(orgId: string, userId: string): void {
    this.entries.delete(`${orgId}\n${userId}`);
  }
}
