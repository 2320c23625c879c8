import type { Db } from '../../db/pool.js';
import { listOrganizationsOfUser, type Organization } from '../../auth/organizations.js';
import type { OrgRole } from '../../auth/memberships.js';

/**
 * How long one process answers `GET /me`'s organisations from memory. Counted from when the read
 * began, so a membership or role changed on another api process shows within this bound (inside
 * the 2 s docs/operations.md promises); on this process the change forgets the user at once.
 */
export const ORGS_OF_USER_TTL_MS = 1_500;
/** `GET /me` lists this many. */
export const ORGS_LISTED = 100;
const MAX_USERS = 10_000;

type OrgsWithRole = (Organization & { role: OrgRole })[];

/** A user's first ORGS_LISTED organisations with their role, for `GET /me`; concurrent requests share a read. */
export class OrgsOfUser {
  private readonly entries = new Map<string, { orgs: Promise<OrgsWithRole>; expiresAt: number }>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  get(userId: string): Promise<OrgsWithRole> {
    const at = this.now();
    const hit = this.entries.get(userId);
    if (hit && hit.expiresAt > at) return hit.orgs;
    this.entries.delete(userId);
    if (this.entries.size >= MAX_USERS) this.entries.delete(this.entries.keys().next().value!);
    const entry = { orgs: listOrganizationsOfUser(this.db, { userId, limit: ORGS_LISTED, after: undefined }), expiresAt: at + ORGS_OF_USER_TTL_MS };
    this.entries.set(userId, entry);
    entry.orgs.catch(() => {
      if (this.entries.get(userId) === entry) this.entries.delete(userId);
    });
    return entry.orgs;
  }

  /**
   * Call once a change to the user's memberships has committed: the next request reads again. A read
   * already under way is not kept for later requests.
   */
  forget(userId: string): void {
    this.entries.delete(userId);
  }
}
