import { z } from 'zod';
import { PaginationQuery, pageSchema } from '../../http/pagination.js';
import { RECORD_TYPES, TTL_DEFAULT, TTL_MAX, TTL_MIN, TXT_MAX_LENGTH, type RecordFields } from './records.js';
import { DnsRecordSchema } from '../webhooks/index.js';
import type { RecordChanges } from './applyRecordChanges.js';
import { DomainPath } from '../../http/pathParams.js';

/**
 * Shapes only: the rules that depend on the type and the domain (addresses, host names, priorities,
 * CAA tags, CNAME exclusivity) are checked by the service, with field errors at the same places.
 */
const RecordType = z.enum(RECORD_TYPES, { error: `Must be one of ${RECORD_TYPES.join(', ')}` }).describe('Record type');
/** Empty (after trimming) is the apex, as `@` is: `normalizeRecordName` turns it into `@`. */
const RecordName = z
  .string({ error: 'Give the name as text: "www", or "@" (or nothing) for the domain itself' })
  .meta({ example: 'www' })
  .trim()
  .max(253, 'A name may be at most 253 characters')
  .describe('Relative to the domain: `@` (or an empty string) for the domain itself, `www`, `_dmarc`, `*.dev`; case-insensitive (stored lower case)');
const CONTENT_MISSING = 'Give the record’s data, e.g. an IPv4 address for an A record.';
const Content = z
  .string({ error: CONTENT_MISSING })
  .meta({ example: '192.0.2.10' })
  .trim()
  .min(1, CONTENT_MISSING)
  .max(TXT_MAX_LENGTH + 100, `The data may be at most ${TXT_MAX_LENGTH} characters`)
  .describe(
    'The record data in zone-file presentation form, per type: A an IPv4 address; AAAA an IPv6 address; CNAME, NS, MX and PTR ' +
      'a host name (trailing dot optional); ALIAS (apex only, answered as the target’s A and AAAA) a host name; ' +
      `TXT plain text, printable ASCII, up to ${TXT_MAX_LENGTH} characters (split into 255-character strings for you; do not quote it); ` +
      'SRV `weight port target` (priority apart); CAA `flags tag value` with tag `issue`, `issuewild` or `iodef`; ' +
      'HTTPS and SVCB `SvcPriority TargetName SvcParams` (RFC 9460; 0 is alias mode, without SvcParams; keys `mandatory`, `alpn`, ' +
      '`no-default-alpn`, `port`, `ipv4hint`, `ech`, `ipv6hint`), e.g. `1 . alpn=h2,h3`; ' +
      'TLSA `usage selector matching-type hex` (RFC 6698; 0–3, 0–1, 0–2; 64 hex digits for SHA-256, 128 for SHA-512), e.g. `3 1 1 <hex>`; ' +
      'SSHFP `algorithm fingerprint-type hex` (algorithm 1–4 or 6; type 1 SHA-1 with 40 hex digits, 2 SHA-256 with 64); ' +
      'NAPTR `order preference "flags" "services" "regexp" replacement` (RFC 3403; a regexp or a replacement, the other empty or `.`); ' +
      'DS (a delegated child’s name, beside its NS records; not the apex) `key-tag algorithm digest-type hex` ' +
      '(algorithm 5, 7, 8, 10, 13–16; digest type 2 SHA-256 with 64 hex digits, 4 SHA-384 with 96)',
  );
const TTL_WORDS = `TTL must be a whole number of seconds, ${TTL_MIN}–${TTL_MAX}`;
const Ttl = z.number({ error: TTL_WORDS }).int(TTL_WORDS).min(TTL_MIN, TTL_WORDS).max(TTL_MAX, TTL_WORDS).describe(`Seconds, ${TTL_MIN}–${TTL_MAX}`);
const PRIORITY_WORDS = 'Priority must be a whole number, 0–65535';
const Priority = z
  .number({ error: PRIORITY_WORDS })
  .int(PRIORITY_WORDS)
  .min(0, PRIORITY_WORDS)
  .max(65_535, PRIORITY_WORDS)
  .nullable()
  .describe('Required for MX and SRV (0–65535); absent or null for the other types');

export const CreateRecordBody = z
  .object({ type: RecordType, name: RecordName, content: Content, ttl: Ttl.default(TTL_DEFAULT), priority: Priority.optional() })
  .strict()
  .transform((body): RecordFields => ({ ...body, priority: body.priority ?? null }))
  .meta({ id: 'CreateDnsRecordInput' });

export const UpdateRecordBody = z
  .object({ name: RecordName, content: Content, ttl: Ttl, priority: Priority })
  .partial()
  .strict()
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'Give at least one field to change')
  .transform((body): RecordChanges => body)
  .meta({ id: 'UpdateDnsRecordInput', example: { ttl: 600 }, description: 'The fields to change; the type cannot change (delete and create instead)' });

export const RecordPath = DomainPath.extend({ record_id: z.string().min(1).max(64).describe('Record id (`rec_…`)') });

export const RecordListQuery = PaginationQuery.extend({
  type: RecordType.optional().describe('Only records of this type'),
  name: z.string().trim().toLowerCase().min(1, 'Give a name to filter by, "@" for the domain itself').max(253, 'A name may be at most 253 characters').optional().describe('Only records of this name (`@` for the apex)'),
});

const RecordId = z.string().min(1).max(64).describe('Record id (`rec_…`)');
/** The version last seen: the number, or the ETag as sent in `If-Match` (`"3"`, or `*` for any). */
const IfMatch = z
  .union([z.number().int().min(1), z.string().regex(/^(?:\*|"[1-9][0-9]{0,8}")$/, 'Must be a version number, "*", or an ETag such as "\\"3\\""')])
  .transform((value) => (typeof value === 'number' ? value : value === '*' ? undefined : Number(value.slice(1, -1))))
  .describe('Like `If-Match`: the version you last saw; another version answers 409 `VERSION_MISMATCH` and nothing changes');

export const BatchBody = z
  .object({
    operations: z
      .array(
        z.discriminatedUnion('op', [
          z.object({ op: z.literal('create'), record: CreateRecordBody }).strict(),
          z.object({ op: z.literal('update'), id: RecordId, changes: UpdateRecordBody, if_match: IfMatch.optional() }).strict(),
          z.object({ op: z.literal('delete'), id: RecordId, if_match: IfMatch.optional() }).strict(),
        ]),
      )
      .min(1)
      .max(100)
      .describe('1–100 operations, applied in order, all or none'),
  })
  .strict()
  .meta({ id: 'DnsRecordBatchInput' });

export const BatchResultSchema = z
  .object({
    results: z
      .array(
        z.discriminatedUnion('op', [
          z.object({ op: z.literal('create'), record: DnsRecordSchema }),
          z.object({ op: z.literal('update'), record: DnsRecordSchema }),
          z.object({ op: z.literal('delete'), id: z.string() }),
        ]),
      )
      .describe('One per operation, in input order'),
  })
  .meta({ id: 'DnsRecordBatchResult' });

export const RecordPage = pageSchema(DnsRecordSchema).meta({ id: 'DnsRecordPage' });
