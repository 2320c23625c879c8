import type { DnsRecord } from './dnsRecords.repository.js';
import { presentationContent } from './records.js';
import type { ZoneApex } from './provider/index.js';
import { ALIAS_GENERIC_TYPE, aliasGenericData } from './aliasGenericForm.js';

/**
 * A domain's zone as an RFC 1035 master file: `$ORIGIN`, `$TTL`, the SOA and apex NS records as the
 * DNS host serves them, then every record, in a stable order (by name, apex first, then type and
 * data), so two exports of the same records are the same text. Owner names are relative to the
 * origin; names in the data are absolute, as stored, so the file means the same wherever it is loaded.
 * ALIAS, which BIND does not know, is written in RFC 3597's generic form (./aliasGenericForm.ts).
 * `named-checkzone <zone> <file>` accepts it (zoneFile.test.ts checks with the real binary).
 */

/** What a zone without a host's own SOA gets (test mode, or a live zone the host does not have yet): BIND's usual timers. */
const SOA_TIMERS = '10800 3600 604800 3600';
const DEFAULT_TTL = 3_600;

const dotted = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/**
 * The apex a host would serve for these records: an SOA naming the first name server, whose serial
 * is the time of the latest change (seconds since 1970), and the domain's name servers.
 */
export function synthesizedApex(zone: string, nameservers: string[], records: Pick<DnsRecord, 'updatedAt'>[]): ZoneApex {
  const latest = records.reduce((max, r) => Math.max(max, Math.floor(r.updatedAt.getTime() / 1000)), 1);
  const primary = nameservers[0] ?? `ns1.${zone}`;
  return {
    soa: { ttl: DEFAULT_TTL, content: `${dotted(primary)} ${dotted(`hostmaster.${zone}`)} ${latest} ${SOA_TIMERS}` },
    ns: { ttl: DEFAULT_TTL, hosts: nameservers.map(dotted) },
  };
}

/** A record with its name's labels read right to left, split once rather than at every comparison of the sort. */
interface Sortable {
  record: DnsRecord;
  labels: string[];
}

/** Apex first, then names in DNS order of their labels read right to left (so a name sits with its children). */
function compareNames(a: Sortable, b: Sortable): number {
  if (a.record.name === b.record.name) return 0;
  if (a.record.name === '@') return -1;
  if (b.record.name === '@') return 1;
  const [x, y] = [a.labels, b.labels];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  }
  return x.length - y.length;
}

function compareRecords(a: Sortable, b: Sortable): number {
  const [r, s] = [a.record, b.record];
  return compareNames(a, b) || r.type.localeCompare(s.type) || (r.priority ?? 0) - (s.priority ?? 0) || r.content.localeCompare(s.content);
}

/** Said in the file when no DNS server answers with its records (docs/api-guide.md, DNS). */
const NOT_SERVED = '; not served: no DNS server answers with these records (test mode without a test DNS host, or another test domain of this name holds its zone)';

export function renderZoneFile(zone: string, apex: ZoneApex, records: DnsRecord[], options: { served: boolean }): string {
  const lines = [
    `; ${zone}: the records this service serves, with the host's SOA and name servers`,
    ...(options.served ? [] : [NOT_SERVED]),
    `$ORIGIN ${dotted(zone)}`,
    `$TTL ${apex.soa.ttl}`,
    `@ ${apex.soa.ttl} IN SOA ${apex.soa.content}`,
    ...apex.ns.hosts.map((host) => `@ ${apex.ns.ttl} IN NS ${host}`),
  ];
  if (apex.ns.hosts.length === 0) lines.push('; the domain has no name servers set, so nothing serves this zone yet');
  const sorted = records.map((record): Sortable => ({ record, labels: record.name.split('.').reverse() })).sort(compareRecords);
  for (const { record } of sorted) {
    const data =
      record.type === 'ALIAS'
        ? `${ALIAS_GENERIC_TYPE} ${aliasGenericData(record.content)} ; ALIAS ${presentationContent(record)}`
        : `${record.type} ${presentationContent(record)}`;
    lines.push(`${record.name} ${record.ttl} IN ${data}`);
  }
  return `${lines.join('\n')}\n`;
}
