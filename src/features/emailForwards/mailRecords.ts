import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { dnsRecordsAtNames, type DnsRecord, type RecordFields, type RecordOperation } from '../dns/index.js';

/**
 * The records that send a domain's mail to our forwarder: MX at the apex to its host name, an SPF
 * record (`v=spf1 mx ~all`: the domain's own mail may come from its MX), and a DMARC policy of
 * `p=none` when the domain has none. The first forward adds those missing (never a second SPF or
 * DMARC record: two of either break both); the last one removed takes away exactly these.
 */
export const SPF_CONTENT = 'v=spf1 mx ~all';
export const DMARC_CONTENT = 'v=DMARC1; p=none';
const MX_PRIORITY = 10;
const TTL = 3600;

export function mailRecords(mxHost: string): RecordFields[] {
  return [
    { type: 'MX', name: '@', content: mxHost, ttl: TTL, priority: MX_PRIORITY },
    { type: 'TXT', name: '@', content: SPF_CONTENT, ttl: TTL, priority: null },
    { type: 'TXT', name: '_dmarc', content: DMARC_CONTENT, ttl: TTL, priority: null },
  ];
}

const isSpf = (r: Pick<DnsRecord, 'type' | 'content'>) => r.type === 'TXT' && r.content.toLowerCase().startsWith('v=spf1');
const isDmarc = (r: Pick<DnsRecord, 'type' | 'name' | 'content'>) => r.type === 'TXT' && r.name === '_dmarc' && r.content.toUpperCase().startsWith('V=DMARC1');
const same = (a: RecordFields, b: DnsRecord) => a.type === b.type && a.name === b.name && a.content.replace(/\.$/, '') === b.content.replace(/\.$/, '');

function atMailNames(db: Queryable, mode: Mode, domainId: string) {
  return dnsRecordsAtNames(db, mode, { domainId, names: ['@', '_dmarc'] });
}

/** The creates the first forward makes: what of mailRecords is missing, an SPF or DMARC record only if the domain has none of its kind. */
export async function mailRecordsToAdd(db: Queryable, mode: Mode, props: { domainId: string; mxHost: string }): Promise<RecordOperation[]> {
  const existing = await atMailNames(db, mode, props.domainId);
  return mailRecords(props.mxHost)
    .filter((wanted) => {
      if (existing.some((r) => same(wanted, r))) return false;
      if (isSpf(wanted)) return !existing.some((r) => r.name === '@' && isSpf(r));
      if (isDmarc(wanted)) return !existing.some(isDmarc);
      return true;
    })
    .map((record) => ({ op: 'create', record }));
}

/** The deletes the last forward removed makes: exactly the records mailRecords describes, as they stand. */
export async function mailRecordsToRemove(db: Queryable, mode: Mode, props: { domainId: string; mxHost: string }): Promise<RecordOperation[]> {
  const existing = await atMailNames(db, mode, props.domainId);
  const ours = mailRecords(props.mxHost);
  return existing.filter((r) => ours.some((wanted) => same(wanted, r))).map((r) => ({ op: 'delete', id: r.id, expectedVersion: undefined }));
}
