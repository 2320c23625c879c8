import { z } from 'zod';
import { exampleId } from '../../ids.js';
import type { DnsRecord } from './dnsRecords.repository.js';
import { RECORD_TYPES } from './records.js';

export const DnsRecordSchema = z
  .object({
    id: z.string().meta({ example: exampleId('rec') }).describe('Record id (`rec_…`)'),
    type: z.enum(RECORD_TYPES),
    name: z.string().meta({ example: 'www' }).describe('Relative to the domain, lower case; `@` is the domain itself'),
    content: z
      .string()
      .meta({ example: '192.0.2.10' })
      .describe(
        'Normalised: host names without the trailing dot; TXT as plain text (unquoted); SRV `weight port target`; ' +
          'CAA `flags tag "value"`; HTTPS and SVCB with SvcParams in key order (`alpn` unquoted, `ech` quoted); ' +
          'TLSA, SSHFP and DS with lower-case hex in one piece; NAPTR with its three strings quoted',
      ),
    ttl: z.number().int().meta({ example: 3600 }).describe('Seconds, 60–86400'),
    priority: z.number().int().nullable().meta({ example: null }).describe('MX and SRV; null for the other types'),
    version: z.number().int().describe('Raised by one on every change; the ETag is this number in quotes'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'DnsRecord' });

/** Records of each kind a `dns_zone.changed` event carries; beyond, `truncated` says the lists are not whole. */
export const ZONE_CHANGE_RECORDS_INLINE = 100;

export const DnsZoneChangeSchema = z
  .object({
    domain: z.string().meta({ example: 'example.com' }),
    created: z.array(DnsRecordSchema).describe(`The records created, at most ${ZONE_CHANGE_RECORDS_INLINE}`),
    updated: z.array(DnsRecordSchema).describe(`The records changed, as they are now, at most ${ZONE_CHANGE_RECORDS_INLINE}`),
    deleted: z.array(DnsRecordSchema).describe(`The records deleted, as they were, at most ${ZONE_CHANGE_RECORDS_INLINE}`),
    truncated: z.boolean().describe(`True when a list would have held more than ${ZONE_CHANGE_RECORDS_INLINE}: list the domain's records for the rest`),
  })
  .describe('`dns_zone.changed`: what one request (a batch, a zone import) changed in the zone of `domain`')
  .meta({ id: 'DnsZoneChange' });

/** The domain, org and mode stay internal. */
export function presentDnsRecord(record: DnsRecord): z.infer<typeof DnsRecordSchema> {
  return {
    id: record.id,
    type: record.type,
    name: record.name,
    content: record.content,
    ttl: record.ttl,
    priority: record.priority,
    version: record.version,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}
