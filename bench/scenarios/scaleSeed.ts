/**
 * Big data for the scale rows, written straight to the bench's database with INSERT … SELECT
 * generate_series in the shape the service writes (migrations/, the repositories), and for a live
 * zone to PowerDNS too (PATCHes of its rrsets in chunks), so seeding 100,000 rows takes seconds.
 */
import type { Db } from '../../src/db/pool.js';
import type { Stack } from '../lib/stack.js';

/** A 22-character id after the prefix, as `newId` makes (base62 of md5 hex is a subset). */
const ID = (prefix: string, seed: string) => `'${prefix}_' || substr(md5(random()::text || ${seed}), 1, 22)`;

/**
 * `count` A records named `${prefix}N` in one domain, one millisecond apart (oldest first), as
 * `insertDnsRecords` writes them; the same rrsets PATCHed to PowerDNS when the domain is live.
 */
export async function seedZoneRecords(stack: Stack, props: { domainId: string; orgId: string; zone: string; livemode: boolean; prefix: string; count: number }): Promise<void> {
  if (props.count <= 0) return;
  await stack.deps.db.query(
    `INSERT INTO dns_records (id, domain_id, org_id, livemode, type, name, content, ttl, priority, created_at, updated_at)
     SELECT ${ID('rec', 'i')}, $1, $2, $3, 'A', $4 || i, '10.' || (i >> 16) % 256 || '.' || (i >> 8) % 256 || '.' || i % 256, 300, NULL,
            now() - ($5 - i) * interval '1 millisecond', now() - ($5 - i) * interval '1 millisecond'
     FROM generate_series(1, $5) AS i`,
    [props.domainId, props.orgId, props.livemode, props.prefix, props.count],
  );
  if (!props.livemode) return;
  const headers = { 'x-api-key': stack.pdns.apiKey, 'content-type': 'application/json' };
  const chunk = 5_000;
  for (let start = 1; start <= props.count; start += chunk) {
    const rrsets = [];
    for (let i = start; i < Math.min(start + chunk, props.count + 1); i += 1) {
      rrsets.push({ name: `${props.prefix}${i}.${props.zone}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: `10.${(i >> 16) % 256}.${(i >> 8) % 256}.${i % 256}`, disabled: false }] });
    }
    const res = await fetch(`${stack.pdns.apiUrl}/api/v1/servers/localhost/zones/${props.zone}.`, { method: 'PATCH', headers, body: JSON.stringify({ rrsets }) });
    if (!res.ok) throw new Error(`PowerDNS PATCH: ${res.status} ${await res.text()}`);
  }
}

/**
 * `count` active test-mode domains of one organisation, one millisecond apart, as `insertDomain` and
 * `changeDomainStatus` leave them: expiring over the coming year, with their registrant linked.
 */
export async function seedDomains(db: Db, props: { orgId: string; contactId: string; prefix: string; count: number }): Promise<void> {
  if (props.count <= 0) return;
  await db.query(
    `WITH made AS (
       INSERT INTO domains (id, org_id, livemode, name, status, years, expires_at, nameservers, registrant_contact_id, created_at, updated_at)
       SELECT ${ID('dom', 'i')}, $1, false, $3 || i || '.com', 'active', 1, now() + (i % 365 + 1) * interval '1 day',
              ARRAY['ns1.example.net', 'ns2.example.net'], $2, now() - ($4 - i) * interval '1 millisecond', now()
       FROM generate_series(1, $4) AS i
       RETURNING id)
     INSERT INTO domain_contacts (domain_id, contact_id, role, livemode) SELECT id, $2, 'registrant', false FROM made`,
    [props.orgId, props.contactId, props.prefix, props.count],
  );
  await db.query('ANALYZE domains');
}
