import type { Db } from '../../db/pool.js';
import { listOrganizationsOfUser, type Organization } from '../../auth/organizations.js';
import type { OrgRole } from '../../auth/memberships.js';
import { RecentReads } from '../../recentReads.js';

/**
 * How long one process answers `GET /me`'s organisations from memory. Counted from when the read
 * began, so a membership or role changed on another api process shows within this bound (inside
 * the 2 s docs/operations.md promises); on this process the change forgets the user at once.
 */
export const ORGS_OF_USER_TTL_MS = 1_500;
/** `GET /me` lists this many. */
export const ORGS_LISTED = 100;

type OrgsWithRole = (Organization & { role: OrgRole })[];

/** A user's first ORGS_LISTED organisations with their role, for `GET /me`; concurrent requests share a read. */
export class OrgsOfUser {
  private readonly reads: RecentReads<OrgsWithRole>;

  constructor(
    private readonly db: Db,
    now: () => number = Date.now,
  ) {
    this.reads = new RecentReads(ORGS_OF_USER_TTL_MS, { now });
  }

  get(userId: string): Promise<OrgsWithRole> {
    return this.reads.get(userId, () => listOrganizationsOfUser(this.db, { userId, limit: ORGS_LISTED, after: undefined }));
  }

  /**
   * Call once a change to the user's memberships has committed: the next request reads again. A read
   * already under way is not kept for later requests.
   */
  forget(userId: string): void {
    this.reads.forget(userId);
  }
}
