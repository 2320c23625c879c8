import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../test/support/testApp.js';
import { dnsCustomer, insertActiveDomain } from '../../../test/support/domains.js';
import { withTransaction } from '../../db/pool.js';
import { findDomainOfOrg, type Domain } from '../domains/domains.repository.js';
import { claimZone, ZONE_FILL_CHANGE_RECORDS } from './zones.js';
import type { RRsetChange } from './provider/index.js';
import { SyntheticDnsProvider } from './provider/synthetic.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * A zone made afresh at the host gets the domain's records in changes of bounded size, whole RRsets
 * each (src/features/dns/zones.ts). The host here is a recorder of the port's calls that can refuse a
 * change, so a fill that fails part way can be seen; src/features/dns/zoneFileLive.test.ts fills a real PowerDNS.
 */
class RecordingHost extends SyntheticDnsProvider {
  readonly calls: string[] = [];
  readonly changes: RRsetChange[][] = [];
  constructor(private readonly refuseChange?: number) {
    super();
  }
  override createZone(): Promise<{ created: boolean }> {
    this.calls.push('create');
    return Promise.resolve({ created: true });
  }
  override deleteZone(): Promise<{ deleted: boolean }> {
    this.calls.push('delete');
    return Promise.resolve({ deleted: true });
  }
  override applyChanges(_zone: string, changes: RRsetChange[]): Promise<void> {
    this.calls.push('change');
    if (this.changes.length + 1 === this.refuseChange) return Promise.reject(new Error('the host refused the change'));
    this.changes.push(changes);
    return Promise.resolve();
  }
  override signZone(): never {
    throw new Error('not signed here');
  }
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => app?.close());

const LIVE = modeOf(true);
const SINGLE = ZONE_FILL_CHANGE_RECORDS + 500;
const WIDE = 1_500;

/** A live domain of SINGLE one-record RRsets and one TXT RRset of WIDE records, written straight to the table. */
async function bigDomain(): Promise<Domain> {
  const c = await dnsCustomer(app, 'live');
  const name = await insertActiveDomain(app, c);
  const domain = (await findDomainOfOrg(app.deps.db, LIVE, c.org.id, name))!;
  await app.deps.db.query(
    `INSERT INTO dns_records (id, domain_id, org_id, livemode, type, name, content, ttl, priority, created_at, updated_at)
     SELECT 'rec_' || substr(md5(random()::text || i), 1, 22), $1, $2, true,
            CASE WHEN i <= $3::int THEN 'A' ELSE 'TXT' END, CASE WHEN i <= $3::int THEN 'h' || i ELSE 'wide' END,
            CASE WHEN i <= $3::int THEN '192.0.2.' || i % 250 ELSE '"entry ' || i || '"' END, 300, NULL, now(), now()
     FROM generate_series(1, $3::int + $4::int) AS i`,
    [domain.id, c.org.id, SINGLE, WIDE],
  );
  return domain;
}

describe('a zone made afresh at the host', () => {
  it('gets every record in changes of about the bounded size, never splitting an RRset', { timeout: 60_000 }, async () => {
    const domain = await bigDomain();
    const host = new RecordingHost();
    expect(await withTransaction(app.deps.db, (tx) => claimZone(tx, host, domain))).toEqual({ served: true, created: true });
    expect(host.calls).toEqual(['delete', 'create', 'change', 'change']);
    const sent = host.changes.flat();
    expect(sent.reduce((n, change) => n + (change.changetype === 'REPLACE' ? change.records.length : 0), 0)).toBe(SINGLE + WIDE);
    // Each RRset once, whole: the wide TXT set in one change, with all its records.
    expect(new Set(sent.map((change) => `${change.name} ${change.type}`)).size).toBe(sent.length);
    expect(sent.find((change) => change.name === 'wide')).toMatchObject({ type: 'TXT', records: expect.any(Array) });
    expect((sent.find((change) => change.name === 'wide') as Extract<RRsetChange, { changetype: 'REPLACE' }>).records).toHaveLength(WIDE);
    for (const changes of host.changes) {
      const records = changes.reduce((n, change) => n + (change.changetype === 'REPLACE' ? change.records.length : 0), 0);
      expect(records).toBeLessThanOrEqual(ZONE_FILL_CHANGE_RECORDS + WIDE);
    }
  });

  it('is deleted again when a change fails part way, so the retry makes it afresh, and records no owner', { timeout: 60_000 }, async () => {
    const domain = await bigDomain();
    const host = new RecordingHost(2);
    await expect(withTransaction(app.deps.db, (tx) => claimZone(tx, host, domain))).rejects.toThrow('the host refused the change');
    expect(host.calls).toEqual(['delete', 'create', 'change', 'change', 'delete']);

    const retry = new RecordingHost();
    expect(await withTransaction(app.deps.db, (tx) => claimZone(tx, retry, domain))).toEqual({ served: true, created: true });
    expect(retry.calls).toEqual(['delete', 'create', 'change', 'change']);
  });
});
