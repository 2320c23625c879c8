-- Up Migration

-- The domain an event is about (its name), written at emit from the event's object
-- (src/features/webhooks/eventDomains.ts), so a key restricted with `allowed_domains` is shown only
-- the events of its domains by the query itself. NULL: the event is about no domain (a ping, a
-- revoked key, a disabled endpoint). Events written before this column had no `domain` in their DNS
-- record objects: those take the name of the record's domain while the record is there, else ''
-- (about a domain no longer known), which no restricted key sees.
ALTER TABLE events ADD COLUMN domain text;
UPDATE events SET domain = CASE
    WHEN type LIKE 'operation.%' OR type LIKE 'dnssec.%' OR type LIKE 'domain.moved_%' THEN data -> 'object' ->> 'domain'
    WHEN type LIKE 'domain.%' THEN data -> 'object' ->> 'name'
    WHEN type LIKE 'dns_record.%' THEN COALESCE(
      (SELECT d.name FROM dns_records r JOIN domains d ON d.id = r.domain_id WHERE r.id = events.data -> 'object' ->> 'id'), '')
  END;

-- Endpoints that subscribed to record events hear of batches and zone imports, which are now one
-- `dns_zone.changed` event each (docs/api-guide.md, Webhooks and events).
UPDATE webhook_endpoints SET events = array_append(events, 'dns_zone.changed')
  WHERE events && ARRAY['dns_record.created', 'dns_record.updated', 'dns_record.deleted'] AND NOT 'dns_zone.changed' = ANY(events);

-- Down Migration
UPDATE webhook_endpoints SET events = array_remove(events, 'dns_zone.changed');
ALTER TABLE events DROP COLUMN domain;
