import { afterAll, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { newId, randomBase62 } from '../../ids.js';
import { insertContact, insertOrg, insertUser } from '../../../test/support/factories.js';
import { backfillLifecycles } from './backfill.js';

const db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'warn' }));
afterAll(async () => db.end());

/** `count` domains of one organisation and mode with the given status; ids as the service makes them (mixed case). */
async function insertDomains(props: { orgId: string; livemode: boolean; status: string; count: number }): Promise<string[]> {
  const contactId = await insertContact({ db }, { orgId: props.orgId, livemode: props.livemode });
  const ids = Array.from({ length: props.count }, () => newId('dom'));
  const prefix = `backfill-${randomBase62(8).toLowerCase()}-`;
  await db.query(
    `INSERT INTO domains (id, org_id, livemode, name, status, years, expires_at, registrant_contact_id)
     SELECT id, $2, $3, $4 || n || '.com', $5, 1, now() + interval '200 days', $6
     FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n)`,
    [ids, props.orgId, props.livemode, prefix, props.status, contactId],
  );
  return ids;
}

describe('the lifecycle backfill', () => {
  it('hands every active and expired domain of both modes to its lifecycle once, across many pages, and no other', async () => {
    const org = await insertOrg({ db }, { owner: await insertUser({ db }) });
    const watched = [
      ...(await insertDomains({ orgId: org.id, livemode: true, status: 'active', count: 120 })),
      ...(await insertDomains({ orgId: org.id, livemode: true, status: 'expired', count: 30 })),
      ...(await insertDomains({ orgId: org.id, livemode: false, status: 'active', count: 150 })),
    ];
    const ended = [
      ...(await insertDomains({ orgId: org.id, livemode: true, status: 'failed', count: 10 })),
      ...(await insertDomains({ orgId: org.id, livemode: false, status: 'registering', count: 10 })),
    ];
    const seen: string[] = [];
    const count = await backfillLifecycles({ db, pageSize: 25, inFlight: 5, watch: (domain) => Promise.resolve(seen.push(domain.id)) });
    expect(count).toBe(seen.length);
    const ours = seen.filter((id) => watched.includes(id) || ended.includes(id));
    expect(ours.sort()).toEqual([...watched].sort());
    // Other files' domains are in this database too: none of them is handed over twice either.
    expect(new Set(seen).size).toBe(seen.length);
  });
});
