import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createPool, type Db } from '../db/pool.js';
import { createLogger } from '../logger.js';
import { MEMBERSHIP_TTL_MS, RecentMemberships } from './recentMemberships.js';
import { newId } from '../ids.js';

/** Against PostgreSQL: a counted pool shows which reads reached it. */
let db: Db;
let reads = 0;
const counted = { query: (...args: Parameters<Db['query']>) => ((reads += 1), db.query(...args)) } as unknown as Db;
beforeAll(() => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'warn' }));
});
afterAll(async () => db?.end());

async function member(role: 'owner' | 'member' = 'member') {
  const [userId, orgId] = [newId('usr'), newId('org')];
  await db.query(`INSERT INTO users (id, subject, email, name) VALUES ($1, $1, $2, 'Recent')`, [userId, `${userId.toLowerCase()}@example.com`]);
  await db.query(`INSERT INTO organizations (id, name) VALUES ($1, 'Recent')`, [orgId]);
  await db.query(`INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, $3)`, [orgId, userId, role]);
  return { userId, orgId };
}

describe('recent memberships', () => {
  it('reuses a membership for 1.5 s from its read, then reads again and sees a change', async () => {
    let now = 1_000_000;
    const cache = new RecentMemberships(counted, () => now);
    const { userId, orgId } = await member();
    reads = 0;
    expect(await cache.get(orgId, userId)).toMatchObject({ role: 'member', org: { id: orgId } });
    expect(await cache.get(orgId, userId)).toMatchObject({ role: 'member' });
    expect(reads).toBe(1);

    // Changed in the database behind this process's back (another api process did it).
    await db.query(`UPDATE memberships SET role = 'admin' WHERE org_id = $1 AND user_id = $2`, [orgId, userId]);
    now += MEMBERSHIP_TTL_MS - 1;
    expect(await cache.get(orgId, userId)).toMatchObject({ role: 'member' });
    now += 1;
    expect(await cache.get(orgId, userId)).toMatchObject({ role: 'admin' });
    expect(reads).toBe(2);
  });

  it('reads again at once after forget, and never keeps a caller who is not a member', async () => {
    const cache = new RecentMemberships(counted, () => 0);
    const { userId, orgId } = await member();
    expect(await cache.get(orgId, userId)).toBeDefined();
    await db.query('DELETE FROM memberships WHERE org_id = $1 AND user_id = $2', [orgId, userId]);
    cache.forget(orgId, userId);
    reads = 0;
    expect(await cache.get(orgId, userId)).toBeUndefined();
    // Joining again is seen on the next request: the miss was not kept.
    await db.query(`INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member')`, [orgId, userId]);
    expect(await cache.get(orgId, userId)).toMatchObject({ role: 'member' });
    expect(reads).toBe(2);
  });

  it('shares one read among concurrent requests', async () => {
    const cache = new RecentMemberships(counted, () => 0);
    const { userId, orgId } = await member('owner');
    reads = 0;
    const all = await Promise.all(Array.from({ length: 5 }, () => cache.get(orgId, userId)));
    expect(all.every((m) => m?.role === 'owner')).toBe(true);
    expect(reads).toBe(1);
  });
});
