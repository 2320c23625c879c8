import { z } from 'zod';
import { exampleId } from '../../ids.js';
import { RECORD_TYPES } from '../../dnsRecordTypes.js';

/**
 * The payloads events carry that the Event schema (event.presenter.ts) names, declared here, below
 * the features that emit them: webhooks is the floor every feature emits through, so it imports
 * none of them. The features render their resources with these (dns/dnsRecord.presenter.ts,
 * apiKeys/apiKey.presenter.ts) and the API answers with the same schemas.
 */

/**
 * A revoked key as its `api_key.revoked` event shows it to the organisations it acted in: enough to
 * recognise it, never its restrictions or limits (those are its owner's business). ApiKey
 * (apiKeys/apiKey.presenter.ts) takes these three fields from here.
 */
export const RevokedApiKeySchema = z
  .object({
    id: z.string().meta({ example: exampleId('key') }),
    prefix: z.string().meta({ example: 'svc_test_Q3x9' }).describe('`svc_<mode>_` and the next 4 characters, to recognise the key'),
    name: z.string().meta({ example: 'CI deploys' }),
  })
  .meta({ id: 'RevokedApiKey' });

/** A DNS record as the API answers it and `dns_record.*` events carry it (with `domain`). */
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
