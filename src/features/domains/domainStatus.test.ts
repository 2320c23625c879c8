import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPool, type Db } from '../../db/pool.js';
import { createLogger } from '../../logger.js';
import { insertOrganization } from '../../auth/organizations.js';
import { insertDomain } from './domains.repository.js';
import { newId } from '../../ids.js';
import { changeDomainStatus, DOMAIN_TRANSITIONS, statusesLeadingTo } from './domainStatus.js';
import { modeOf } from '../../db/modeScope.js';

const TEST = modeOf(false);
let db: Db;
let orgId: string;

beforeAll(async () => {
  db = createPool(inject('databaseUrl'), createLogger({ logLevel: 'silent' }));
  orgId = (await insertOrganization(db, { id: newId('org'), name: 'Status test' })).id;
});
afterAll(async () => db?.end());

function insertRegistering(name: string) {
  return insertDomain(db, TEST, {
    id: newId('dom'),
    orgId,
    name,
    status: 'registering',
    years: 1,
    autoRenew: false,
    nameservers: [],
    registrantContactId: 'ct_none',
    adminContactId: null,
    techContactId: null,
  });
}

async function domainAt(path: ('active' | 'expired' | 'deleted' | 'failed')[]): Promise<{ id: string; name: string }> {
  const domain = await insertRegistering(`status-${newId('dom').slice(4, 14).toLowerCase()}.com`);
  for (const to of path) await changeDomainStatus({ db, mode: TEST, domainId: domain.id, to });
  return domain;
}

describe('changeDomainStatus, the one place a domain status changes', () => {
  it('walks the lifecycle: registering, active, expired, active again, expired, deleted', async () => {
    const domain = await domainAt(['active', 'expired', 'active', 'expired']);
    const deleted = await changeDomainStatus({ db, mode: TEST, domainId: domain.id, to: 'deleted' });
    expect(deleted.status).toBe('deleted');
    // A retried step that finds the status it wanted is answered, not refused.
    expect((await changeDomainStatus({ db, mode: TEST, domainId: domain.id, to: 'deleted' })).status).toBe('deleted');
  });

  it('refuses every transition the table does not name with 409 DOMAIN_STATE_CONFLICT, changing nothing', async () => {
    const deleted = await domainAt(['active', 'expired', 'deleted']);
    await expect(changeDomainStatus({ db, mode: TEST, domainId: deleted.id, to: 'active' })).rejects.toMatchObject({ status: 409, code: 'DOMAIN_STATE_CONFLICT' });
    const active = await domainAt(['active']);
    await expect(changeDomainStatus({ db, mode: TEST, domainId: active.id, to: 'deleted' })).rejects.toMatchObject({ code: 'DOMAIN_STATE_CONFLICT' });
    await expect(changeDomainStatus({ db, mode: TEST, domainId: active.id, to: 'failed' })).rejects.toMatchObject({ code: 'DOMAIN_STATE_CONFLICT' });
    const { rows } = await db.query<{ status: string }>('SELECT status FROM domains WHERE id = ANY($1) ORDER BY status', [[deleted.id, active.id]]);
    expect(rows.map((r) => r.status)).toEqual(['active', 'deleted']);
  });

  it('frees the name once deleted: another domain of that name may be held', async () => {
    const gone = await domainAt(['active', 'expired', 'deleted']);
    await expect(insertRegistering(gone.name)).resolves.toMatchObject({ name: gone.name, status: 'registering' });
  });

  it('lets nothing leave failed or deleted', () => {
    expect(DOMAIN_TRANSITIONS.failed).toEqual([]);
    expect(DOMAIN_TRANSITIONS.deleted).toEqual([]);
    expect(statusesLeadingTo('deleted')).toEqual(['expired']);
    expect(statusesLeadingTo('active').sort()).toEqual(['active', 'expired', 'registering', 'transfer_pending']);
  });
});
