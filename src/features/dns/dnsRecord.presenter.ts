import type { z } from 'zod';
import type { DnsRecord } from './dnsRecords.repository.js';
import type { DnsRecordSchema } from '../webhooks/index.js';

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
