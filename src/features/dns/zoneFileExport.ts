import { presentationContent, type RecordFields } from './records.js';
import type { ZoneApex } from './provider/index.js';
import { ALIAS_GENERIC_TYPE, aliasGenericData } from './aliasGenericForm.js';

/**
 * A domain's zone as an RFC 1035 master file: `$ORIGIN`, `$TTL`, the SOA and apex NS records as the
 * DNS host serves them, then every record, in a stable order (by name, apex first, then type and
 * data: dnsRecordsInZoneFileOrder), so two exports of the same records are the same text. The records
 * arrive in batches and are written as they come, so an export never holds the zone whole
 * (docs/bench.md, Scale). Owner names are relative to the origin; names in the data are absolute, as
 * stored, so the file means the same wherever it is loaded. ALIAS, which BIND does not know, is written
 * in RFC 3597's generic form (./aliasGenericForm.ts). `named-checkzone <zone> <file>` accepts it
 * (zoneFile.test.ts checks with the real binary).
 */

/** What a zone without a host's own SOA gets (test mode, or a live zone the host does not have yet): BIND's usual timers. */
const SOA_TIMERS = '10800 3600 604800 3600';
const DEFAULT_TTL = 3_600;

const dotted = (name: string) => (name.endsWith('.') ? name : `${name}.`);

/**
 * The apex a host would serve for these records: an SOA naming the first name server, whose serial
 * is the time of the latest change (seconds since 1970), and the domain's name servers.
 */
export function synthesizedApex(zone: string, nameservers: string[], latestChange: Date | undefined): ZoneApex {
  const latest = latestChange ? Math.max(1, Math.floor(latestChange.getTime() / 1000)) : 1;
  const primary = nameservers[0] ?? `ns1.${zone}`;
  return {
    soa: { ttl: DEFAULT_TTL, content: `${dotted(primary)} ${dotted(`hostmaster.${zone}`)} ${latest} ${SOA_TIMERS}` },
    ns: { ttl: DEFAULT_TTL, hosts: nameservers.map(dotted) },
  };
}

/** Said in the file when no DNS server answers with its records (docs/api-guide.md, DNS). */
const NOT_SERVED = '; not served: no DNS server answers with these records (test mode without a test DNS host, or another test domain of this name holds its zone)';

/** The file's opening lines: origin, default TTL, the SOA and the apex NS records. */
export function zoneFileHead(zone: string, apex: ZoneApex, options: { served: boolean }): string {
  const lines = [
    `; ${zone}: the records this service serves, with the host's SOA and name servers`,
    ...(options.served ? [] : [NOT_SERVED]),
    `$ORIGIN ${dotted(zone)}`,
    `$TTL ${apex.soa.ttl}`,
    `@ ${apex.soa.ttl} IN SOA ${apex.soa.content}`,
    ...apex.ns.hosts.map((host) => `@ ${apex.ns.ttl} IN NS ${host}`),
  ];
  // A host answers queries sent to it straight away; without NS records no resolver is sent there.
  if (apex.ns.hosts.length === 0) lines.push('; no NS records: the domain has no name servers set, so no resolver is sent to this zone yet');
  return `${lines.join('\n')}\n`;
}

/** One line per record, in the order given (zone-file order, from the database). */
export function zoneFileLines(records: RecordFields[]): string {
  let text = '';
  for (const record of records) {
    const data =
      record.type === 'ALIAS'
        ? `${ALIAS_GENERIC_TYPE} ${aliasGenericData(record.content)} ; ALIAS ${presentationContent(record)}`
        : `${record.type} ${presentationContent(record)}`;
    text += `${record.name} ${record.ttl} IN ${data}\n`;
  }
  return text;
}
