import type { z } from 'zod';
import type { Queryable } from '../../db/pool.js';
import { emitEvent, ZONE_CHANGE_RECORDS_INLINE, type DnsZoneChangeSchema } from '../webhooks/index.js';
import type { DnsRecord } from './dnsRecords.repository.js';
import { presentDnsRecord } from './dnsRecord.presenter.js';

export type RecordChange =
  | { kind: 'create'; record: DnsRecord }
  | { kind: 'update'; record: DnsRecord; before: DnsRecord }
  | { kind: 'delete'; record: DnsRecord };

const TYPES = { create: 'dns_record.created', update: 'dns_record.updated', delete: 'dns_record.deleted' } as const;

/** A record as its event shows it: as the API renders it, with the name of its domain. */
const recordOf = (record: DnsRecord, domain: string) => ({ ...presentDnsRecord(record), domain });

/**
 * The events of one request's record changes, in its transaction (docs/api-guide.md, Webhooks and
 * events): one change is `dns_record.created|updated|deleted` with the record (and `data.previous`,
 * the record before, on updates and deletes); more than one is a single `dns_zone.changed`, one row
 * whatever the size of the batch or import. `seedOf` derives each event's id from the request, so a
 * request run again writes the same event, not a second.
 */
export async function emitRecordChangeEvents(
  db: Queryable,
  props: { orgId: string; livemode: boolean; domain: string; changes: RecordChange[]; seedOf: ((part: number | 'zone') => string | undefined) | undefined },
): Promise<void> {
  const { changes, domain } = props;
  const base = { db, orgId: props.orgId, livemode: props.livemode };
  if (changes.length === 1) {
    const [change] = changes as [RecordChange];
    const previous = change.kind === 'update' ? change.before : change.kind === 'delete' ? change.record : undefined;
    await emitEvent({
      ...base,
      type: TYPES[change.kind],
      object: recordOf(change.record, domain),
      ...(previous ? { previous: recordOf(previous, domain) } : {}),
      dedupeSeed: props.seedOf?.(0),
    });
    return;
  }
  if (changes.length === 0) return;
  const of = (kind: RecordChange['kind']) => changes.filter((c) => c.kind === kind).map((c) => c.record);
  const lists = { created: of('create'), updated: of('update'), deleted: of('delete') };
  const inline = (records: DnsRecord[]) => records.slice(0, ZONE_CHANGE_RECORDS_INLINE).map(presentDnsRecord);
  const object: z.infer<typeof DnsZoneChangeSchema> = {
    domain,
    created: inline(lists.created),
    updated: inline(lists.updated),
    deleted: inline(lists.deleted),
    truncated: Object.values(lists).some((records) => records.length > ZONE_CHANGE_RECORDS_INLINE),
  };
  await emitEvent({ ...base, type: 'dns_zone.changed', object, dedupeSeed: props.seedOf?.('zone') });
}
