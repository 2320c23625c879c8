import { z } from 'zod';
import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import type { DnsProviders } from './provider/index.js';
import { idempotentId } from '../../http/idempotency.js';
import { snapshotTextStream } from '../../db/snapshotStream.js';
import { domainNamed } from '../domains/index.js';
import { dnsRecordsInZoneFileOrder, latestDnsRecordChange } from './dnsRecords.repository.js';
import { DnsZoneNotFoundError } from './provider/errors.js';
import { RECORD_TYPES } from './records.js';
import { DomainPath } from '../../http/pathParams.js';
import { synthesizedApex, zoneFileHead, zoneFileLines } from './zoneFileExport.js';
import { zoneExportSlots, zoneImportSlots } from './zoneFileSlots.js';
import { isServed } from './zones.js';
import { importZoneFile, ZONE_FILE_MAX_RECORDS } from './zoneFileImport.js';
import { admitRequestEvents, EVENT_BUDGET_ERRORS, type EventBudgetDeps } from '../webhooks/index.js';
import { ZONE_RECORD_LIMIT_REFUSAL } from './zoneRecordLimit.js';
import { admitRecordChanges, RECORD_CHANGE_BUDGET_REFUSAL, type RecordChangeBudgetDeps } from './recordChangeBudget.js';
import { modeOf } from '../../db/modeScope.js';

/** A zone file of 20,000 records of ~100 bytes, with room for long TXT (DKIM) records. */
export const ZONE_FILE_LIMIT_BYTES = 8 * 1024 * 1024;
const ZONE_CONTENT_TYPES = ['text/dns', 'text/plain'] as const;
/** Records an export reads and writes at a time: about 100 KB of text. */
const EXPORT_BATCH_RECORDS = 1_000;

const ImportQuery = z.object({
  mode: z
    .enum(['merge', 'replace'], { error: 'Must be merge or replace' })
    .default('merge')
    .describe('`merge` (default) keeps the records the file does not hold; `replace` deletes them, leaving the domain with exactly the file’s records'),
});
const ImportHeader = z.object({
  'dry-run': z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => value === 'true')
    .describe('`true`: every check of the real import (the file, each record, the domain’s state, conflicts), under the same locks; answers what would change and changes nothing'),
});
const ZoneFileBody = z
  .string()
  .meta({ example: '$ORIGIN example.com.\n$TTL 3600\nwww 300 IN A 192.0.2.10\n    IN AAAA 2001:db8::10\n@ MX 10 mail.example.net.\n' })
  .describe(
    'An RFC 1035 master file: `$ORIGIN` and `$TTL`, `@`, relative and absolute names, omitted owner, TTL and class (IN), ' +
      'quoted strings with escapes, parentheses across lines, `;` comments. Without `$ORIGIN` names are relative to the domain.',
  );

const Line = z.number().int().describe('The line of the file the record starts on');
const RecordData = {
  type: z.enum(RECORD_TYPES),
  name: z.string().describe('Relative to the domain; `@` is the domain itself'),
  content: z.string().describe('As stored (see `DnsRecord.content`)'),
  ttl: z.number().int(),
  priority: z.number().int().nullable(),
};
const ZoneImportResultSchema = z
  .object({
    create: z.array(z.object({ line: Line, id: z.string().nullable().describe('The new record’s id; null in a dry run'), ...RecordData })),
    update: z.array(
      z.object({
        line: Line,
        id: z.string(),
        ...RecordData,
        previous: z.object({ content: z.string(), ttl: z.number().int(), priority: z.number().int().nullable() }).describe('The record before the import'),
      }),
    ),
    delete: z.array(z.object({ id: z.string(), ...RecordData })).describe('Only with `mode=replace`'),
    skipped: z
      .array(z.object({ line: Line, type: z.string(), name: z.string(), reason: z.string() }))
      .describe('Entries not imported, with why: the SOA and apex NS (the host’s own), types not served here, DNSSEC records, repeats'),
  })
  .meta({ id: 'ZoneImportResult' });

const NOT_FOUND = 'No such domain in this organisation and mode (`NOT_FOUND`)';
const ZoneServedHeader = z.object({
  'Zone-Served': z.enum(['true', 'false']).describe('Whether a DNS server answers with these records (docs/api-guide.md, DNS)'),
});

export type ZoneFileRouteDeps = Pick<PlatformDeps, 'db'> & { dnsProviders: DnsProviders } & EventBudgetDeps & RecordChangeBudgetDeps;

export function zoneFileRoutes(deps: ZoneFileRouteDeps) {
  const exportSlots = zoneExportSlots();
  const importSlots = zoneImportSlots();
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/zone',
      operationId: 'exportZoneFile',
      summary: 'The domain’s zone as an RFC 1035 master file (`text/dns`)',
      description:
        '`$ORIGIN`, `$TTL`, the SOA and apex NS records as the DNS host serves them (as PowerDNS has them; a zone no DNS ' +
        'server serves, or not made yet: an SOA naming the first name server with the time of the latest change as serial, ' +
        'and the domain’s name servers), then every record. `named-checkzone` accepts it; importing it into another domain ' +
        'copies the records. The `Zone-Served` header (and a comment in the file when `false`) says whether a DNS server ' +
        'answers with these records: `false` in test mode without a test DNS host, or while another test domain of the same ' +
        'name holds the test host’s zone (docs/api-guide.md, DNS).',
      tags: ['dns'],
      scope: 'dns:read',
      actsOnRecords: true,
      request: { path: DomainPath },
      responses: { 200: { description: 'The zone file', contentType: 'text/dns', schema: z.string(), headers: ZoneServedHeader } },
      errors: {
        404: NOT_FOUND,
        429: 'The organisation is already reading as many large zone files from this api process as its plan allows (`RATE_LIMITED`, with `Retry-After`)',
        502: 'The DNS provider refused the read (`DNS_PROVIDER_UNAVAILABLE`)',
        503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`); or too many large zone files are being read from this server at once (`ZONE_EXPORT_BUSY`, with `Retry-After`); retry later',
      },
      handler: async (ctx, { path, principal }) => {
        const domain = await domainNamed(deps.db, modeOf(principal.livemode), path.org_oid, path.domain);
        const served = await isServed(deps.db, deps.dnsProviders, domain);
        const apex = served
          ? await deps.dnsProviders
              .forMode(domain.livemode)
              .zoneApex(domain.name)
              .catch((err: unknown) => {
                if (err instanceof DnsZoneNotFoundError) return undefined;
                throw err;
              })
          : undefined;
        // Read from one snapshot and written as read: a zone of any size is never held whole (docs/bench.md, Scale).
        const body = await snapshotTextStream(deps.db, {
          head: async (client) =>
            zoneFileHead(domain.name, apex ?? synthesizedApex(domain.name, domain.nameservers, await latestDnsRecordChange(client, modeOf(principal.livemode), domain.id)), { served }),
          batches: (client) => dnsRecordsInZoneFileOrder(client, modeOf(principal.livemode), domain.id, EXPORT_BATCH_RECORDS),
          render: zoneFileLines,
          slots: exportSlots.slots,
          holder: exportSlots.holderOf(ctx.state.org!.org),
        });
        ctx.type = 'text/dns; charset=utf-8';
        ctx.set('Content-Disposition', `attachment; filename="${domain.name}.zone"`);
        ctx.set('Zone-Served', String(served));
        ctx.body = body;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/orgs/{org_oid}/domains/{domain}/zone',
      operationId: 'importZoneFile',
      summary: 'Import a zone file (`text/dns`): the difference from the domain’s records, applied all or nothing',
      description:
        'The file is read whole first: any problem answers 422 `ZONE_FILE_INVALID` with one entry per problem naming its line, ' +
        'and nothing changes. Records of types not served here, the SOA and the apex NS records (the host’s own) are not ' +
        'imported and are listed in `skipped`. The difference from the domain’s records is then applied as one batch ' +
        '(the same path, locks, audit and events as `batchDnsRecords`): a record already there with the same data is left ' +
        'alone (updated when only its TTL differs), so importing the same file again changes nothing. ' +
        `At most ${ZONE_FILE_MAX_RECORDS} records and ${ZONE_FILE_LIMIT_BYTES / 1024 / 1024} MB. Also accepted as \`text/plain\`.`,
      tags: ['dns'],
      scope: 'dns:write',
      actsOnRecords: true,
      request: { path: DomainPath, query: ImportQuery, header: ImportHeader, body: ZoneFileBody },
      textBody: { contentTypes: ZONE_CONTENT_TYPES, limitBytes: ZONE_FILE_LIMIT_BYTES },
      holdsSlot: (ctx) => importSlots.slots.take(importSlots.holderOf(ctx.state.org!.org)),
      responses: { 200: { description: 'What changed (or, in a dry run, would change)', schema: ZoneImportResultSchema } },
      errors: {
        404: NOT_FOUND,
        409:
          'The domain is not `active` (`DOMAIN_STATE_CONFLICT`); a record changed while the file was read (`VERSION_MISMATCH`); a CNAME would share its name (`RECORD_CONFLICT`); ' +
          `${EVENT_BUDGET_ERRORS[409]} (not for a dry run); ${ZONE_RECORD_LIMIT_REFUSAL}, counting what the import leaves (a file of more records is refused, the rest of it not read)`,
        422: 'The file cannot be read, or a record in it breaks its type’s rules (`ZONE_FILE_INVALID`, each problem with its line)',
        429: `${EVENT_BUDGET_ERRORS[429]} (not for a dry run); or the organisation is already importing as many zone files on this api process as its plan allows (one at a time on the free plan; \`RATE_LIMITED\`, with \`Retry-After\`); or ${RECORD_CHANGE_BUDGET_REFUSAL}`,
        502: 'The DNS provider refused the change (`DNS_PROVIDER_UNAVAILABLE`); nothing was changed',
        503: 'The DNS provider is down (`DNS_PROVIDER_UNAVAILABLE`), or too many zone files are being imported on this server at once (`ZONE_IMPORT_BUSY`, with `Retry-After`); nothing was changed, retry later',
      },
      handler: async (ctx, { path, query, header, body, principal, requestId }) => {
        // The whole import is one event (`dns_zone.changed`); a dry run emits none.
        if (!header['dry-run']) await admitRequestEvents(deps, ctx.state, modeOf(principal.livemode));
        ctx.body = await importZoneFile({
          db: deps.db,
          dnsProviders: deps.dnsProviders,
          principal,
          orgId: path.org_oid,
          domain: path.domain,
          text: body,
          mode: query.mode,
          dryRun: header['dry-run'],
          requestId,
          createdIdOf: (index) => idempotentId(ctx.state, 'rec', String(index)),
          eventSeedOf: (part) => idempotentId(ctx.state, 'evt', `dns_record|${part}`),
          admitChanges: (changes) => admitRecordChanges(deps, ctx.state, modeOf(principal.livemode), changes),
        });
      },
    }),
  ];
}
