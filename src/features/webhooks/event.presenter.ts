import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { EVENT_TYPES, type EventRow } from './events.repository.js';
import { DnsZoneChangeSchema, RevokedApiKeySchema } from './eventPayloads.js';

/** What `data.object` holds: the resource as the API renders it, except a revoked key (RevokedApiKey) and a zone's change (DnsZoneChange). */
const EventObject = z
  .union([RevokedApiKeySchema, DnsZoneChangeSchema, z.record(z.string(), z.unknown())])
  .meta({ example: { id: exampleId('op'), type: 'domain.register', status: 'succeeded', domain: 'example.com' } })
  .describe(
    'The resource as the API renders it (an operation, a domain, a webhook endpoint, a DNS record). For `api_key.revoked`, only the ' +
      "key's `{id, prefix, name}` (RevokedApiKey), sent to the organisations the key acted in, never its restrictions or limits. " +
      'For `dns_record.*`, the record with `domain`, the name of its domain; for `dns_record.deleted`, as it was when deleted. ' +
      'For `dns_zone.changed` (a request that changed more than one record: a batch, a zone import), DnsZoneChange. ' +
      'Every event about a domain names it: `domain`, or `name` for a domain itself',
  );

const PreviousObject = z
  .record(z.string(), z.unknown())
  .meta({ example: { id: exampleId('rec'), type: 'A', name: 'www', content: '192.0.2.10', ttl: 3600, version: 1, domain: 'example.com' } })
  .describe('`dns_record.updated` and `dns_record.deleted` only: the record as it was before the change, rendered the same way');

export const EventSchema = z
  .object({
    id: z.string().meta({ example: exampleId('evt') }).describe('`evt_…`; also the `webhook-id` header of its deliveries'),
    type: z.enum(EVENT_TYPES),
    created_at: z.iso.datetime(),
    livemode: z.boolean(),
    org_id: z.string().meta({ example: exampleId('org') }),
    data: z.object({ object: EventObject, previous: PreviousObject.optional() }),
  })
  .meta({ id: 'Event' });

export type EventBody = z.infer<typeof EventSchema>;

/** What the events API answers and what a webhook POSTs: the same JSON. */
export function presentEvent(event: EventRow): EventBody {
  return {
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    livemode: event.livemode,
    org_id: event.orgId,
    // Every event is emitted with a rendered resource, which is always a JSON object.
    data: {
      object: event.data.object as Record<string, unknown>,
      ...(event.data.previous === undefined ? {} : { previous: event.data.previous as Record<string, unknown> }),
    },
  };
}
