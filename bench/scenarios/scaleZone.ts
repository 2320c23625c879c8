/**
 * One live zone of N records (PowerDNS behind it), each operation beside the same on a zone of one page (bench/scenarios/scale.ts):
 * a page of the list (first, and 90 % deep by cursor), the export, 1,000 changes (ten batches of 100,
 * the most one batch takes), the time until PowerDNS answers a new record, a 5,000-record import,
 * and the zone made again at PowerDNS with every record (removed there, then the next edit).
 */
import { activeDomain, type BenchCustomer } from '../lib/customer.js';
import { otherProviderZoneFile } from '../zoneFile.js';
import type { Stack } from '../lib/stack.js';
import { seedZoneRecords } from './scaleSeed.js';
import { deepCursor, medianMs, rssRiseOver, timedFetch, type CurvePoint } from './scaleMeasure.js';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (token: string) => ({ ...auth(token), 'content-type': 'application/json' });

export type ZoneOperation = 'list, first page of 100' | 'list, page 90 % deep' | 'export the zone' | '1,000 changes (10 batches of 100)' | 'PowerDNS answers a new record' | 'import a 5,000-record file' | 'zone made again at PowerDNS';

async function dnsAnswered(stack: Stack, fqdn: string, since: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await stack.pdns.resolver().resolve4(fqdn).catch(() => []);
    if (answer.length > 0) return performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  throw new Error(`PowerDNS never answered ${fqdn}`);
}

export async function zoneAtSize(stack: Stack, c: BenchCustomer, size: number): Promise<CurvePoint<ZoneOperation>[]> {
  const { db } = stack.deps;
  const zone = await activeDomain(stack.deps, { orgId: c.orgId, livemode: true, contactId: c.liveContactId });
  const base = `${stack.api.url}/api/v1/orgs/${c.orgId}/domains/${zone}`;
  // The first record through the api makes the zone at PowerDNS; the rest go straight in.
  await timedFetch(`${base}/records`, { method: 'POST', headers: json(c.liveKey), body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 }) });
  const { rows: [domain] } = await db.query<{ id: string }>('SELECT id FROM domains WHERE name = $1 AND livemode', [zone]);
  await seedZoneRecords(stack, { domainId: domain!.id, orgId: c.orgId, zone, livemode: true, prefix: 's', count: size });
  await db.query('ANALYZE dns_records');
  const cursor = await deepCursor(db, { table: 'dns_records', where: 'domain_id = $1 AND livemode', params: [domain!.id], rows: size, idPrefix: 'rec' });
  const point = (operation: ZoneOperation, ms: number, detail?: string): CurvePoint<ZoneOperation> => ({ operation, size, ms, ...(detail ? { detail } : {}) });

  const first = await medianMs(15, () => timedFetch(`${base}/records?limit=100`, { headers: auth(c.liveKey) }));
  const deepPage = await medianMs(15, () => timedFetch(`${base}/records?limit=100&cursor=${encodeURIComponent(cursor)}`, { headers: auth(c.liveKey) }));
  let exported = 0;
  // The peak, not the RSS after: what an export holds while it runs is gone (or not yet collected) after.
  const exportRss = await rssRiseOver(stack.api.process.child.pid!, async () => {
    exported = await medianMs(3, () => timedFetch(`${base}/zone`, { headers: auth(c.liveKey) }));
  });

  let changed = 0;
  const batches = performance.now();
  for (let b = 0; b < 10; b += 1) {
    const operations = Array.from({ length: 100 }, (_, i) => ({ op: 'create', record: { type: 'A', name: `batch${b * 100 + i}`, content: '192.0.2.2', ttl: 300 } }));
    await timedFetch(`${base}/records/batch`, { method: 'POST', headers: json(c.liveKey), body: JSON.stringify({ operations }) });
    changed += operations.length;
  }
  const batchMs = performance.now() - batches;

  const probeStarted = performance.now();
  await timedFetch(`${base}/records`, { method: 'POST', headers: json(c.liveKey), body: JSON.stringify({ type: 'A', name: 'probe', content: '192.0.2.3', ttl: 60 }) });
  const answeredMs = await dnsAnswered(stack, `probe.${zone}`, probeStarted);

  const { text, records } = otherProviderZoneFile(zone, 5_000);
  const imported = await timedFetch(`${base}/zone`, { method: 'POST', headers: { ...auth(c.liveKey), 'content-type': 'text/dns' }, body: text });

  // The zone removed at PowerDNS: the next edit makes it again and gives it every record (src/features/dns/zones.ts).
  const removed = await fetch(`${stack.pdns.apiUrl}/api/v1/servers/localhost/zones/${zone}.`, { method: 'DELETE', headers: { 'X-API-Key': stack.pdns.apiKey } });
  if (removed.status !== 204) throw new Error(`PowerDNS did not remove ${zone}: ${removed.status}`);
  const { rows: [held] } = await db.query<{ count: string }>('SELECT count(*) FROM dns_records WHERE domain_id = $1 AND livemode', [domain!.id]);
  let rebuilt = 0;
  const rebuildRss = await rssRiseOver(stack.api.process.child.pid!, async () => {
    rebuilt = (await timedFetch(`${base}/records`, { method: 'POST', headers: json(c.liveKey), body: JSON.stringify({ type: 'A', name: 'again', content: '192.0.2.4', ttl: 60 }) })).ms;
  });
  if ((await stack.pdns.resolver().resolve4(`s${size - 1}.${zone}`).catch(() => [])).length === 0) throw new Error(`the zone made again at PowerDNS lacks s${size - 1}.${zone}`);
  return [
    point('list, first page of 100', first),
    point('list, page 90 % deep', deepPage),
    point('export the zone', exported, `api RSS peak +${exportRss.toFixed(0)} MB`),
    point('1,000 changes (10 batches of 100)', batchMs, `${changed} created`),
    point('PowerDNS answers a new record', answeredMs, 'POST sent → first UDP answer'),
    point('import a 5,000-record file', imported.ms, `${records} records`),
    point('zone made again at PowerDNS', rebuilt, `${Number(held!.count).toLocaleString('en-GB')} records; api RSS peak +${rebuildRss.toFixed(0)} MB`),
  ];
}
