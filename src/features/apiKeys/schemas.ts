import { z } from 'zod';
import { KEY_PRESETS, SCOPES } from '../../auth/scopes.js';
import { canonicalCidr } from '../../http/cidr.js';
import { canonicalDomainPattern } from '../../auth/keyRestrictions.js';
import { parseRecordPattern } from '../../auth/recordPatterns.js';
import { RECORD_TYPES } from '../../dnsRecordTypes.js';
import { ApiKeySchema } from './apiKey.presenter.js';
import { pageSchema } from '../../http/pagination.js';

type Canonical = { ok: true; value: string } | { ok: false; reason: string };

/** A canonicalising function that answers undefined for what it refuses, with the reason to give then. */
const orReason = (canonical: (entry: string) => string | undefined, reason: string) => (entry: string): Canonical => {
  const value = canonical(entry);
  return value === undefined ? { ok: false, reason } : { ok: true, value };
};

/** Up to 100 entries, each made canonical by `canonical` (else a field error at its index, with its reason). */
function canonicalList(canonical: (entry: string) => Canonical) {
  return z
    .array(z.string().min(1).max(300))
    .max(100)
    .transform((entries, ctx) => {
      const out = entries.map(canonical);
      out.forEach((result, i) => {
        if (!result.ok) ctx.addIssue({ code: 'custom', path: [i], message: result.reason, params: { type: 'restriction_invalid' } });
      });
      return [...new Set(out.flatMap((result) => (result.ok ? [result.value] : [])))];
    });
}

/** What a key may be limited to; the same fields at creation and in PATCH. */
const KeyGuardFields = {
  monthly_spend_limit: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .nullable()
    .optional()
    .describe(
      "The most this key's register, transfer and renew requests may reserve in a calendar month (UTC), in minor units, " +
        'in every organisation together; past it 402 `SPEND_LIMIT_REACHED`. null: no limit',
    ),
  allowed_ips: canonicalList(orReason(canonicalCidr, 'Must be an IPv4 or IPv6 CIDR (or a single address)'))
    .optional()
    .describe('CIDRs the key may be used from, e.g. `["203.0.113.0/24", "2001:db8::/32"]`; elsewhere 403 `IP_NOT_ALLOWED`. Empty: anywhere'),
  allowed_domains: canonicalList(orReason(canonicalDomainPattern, 'Must be a domain name or *.suffix'))
    .optional()
    .describe(
      'Domains the key may register, transfer, renew, change, read the auth code or DNS records of: exact names or `*.suffix` ' +
        '(every name under it); others 403 `DOMAIN_NOT_ALLOWED`. Empty: any domain',
    ),
  allowed_records: canonicalList((entry) => parseRecordPattern(entry, RECORD_TYPES))
    .optional()
    .describe(
      'The only DNS records the key may create, change or delete, as `<name>:<TYPE>` with a fully qualified name one of whose ' +
        'labels (not the last) may be `*` for one or more labels: `_acme-challenge.example.com:TXT` is the DNS-01 challenge of ' +
        'example.com and *.example.com, `_acme-challenge.*.example.com:TXT` those of every name under it. The key then reads only ' +
        'the records of the domains these name and can call nothing but the records, zone file and httpreq routes; anything else ' +
        'is 403 `RECORD_NOT_ALLOWED`. Empty: no such restriction',
    ),
};

const PresetName = z.enum(Object.keys(KEY_PRESETS) as [keyof typeof KEY_PRESETS, ...(keyof typeof KEY_PRESETS)[]]);

export const CreateApiKeyBody = z
  .object({
    name: z.string().trim().min(1).max(100).describe('A label to recognise the key by'),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .refine((scopes) => new Set(scopes).size === scopes.length, 'Scopes must not repeat')
      .optional()
      .describe('What the key may do; give this or `preset`'),
    preset: PresetName.optional().describe('A pre-filled scope set; give this or `scopes`'),
    mode: z.enum(['live', 'test']).optional().describe("`test` keys never call the registrar; defaults to the caller's mode"),
    ...KeyGuardFields,
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.scopes === undefined) === (body.preset === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['scopes'], message: 'Give exactly one of scopes or preset' });
    }
    // Its scopes alone would let it write every record: the preset is the restriction.
    if (body.preset === 'certificates' && (body.allowed_records ?? []).length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['allowed_records'],
        message: 'The certificates preset needs allowed_records, e.g. ["_acme-challenge.example.com:TXT", "_acme-challenge.*.example.com:TXT"]',
      });
    }
  })
  .transform(({ preset, scopes, ...rest }) => ({ ...rest, scopes: (preset ? [...KEY_PRESETS[preset]] : scopes!) }))
  .meta({ id: 'CreateApiKeyInput', example: { name: 'CI deploys', preset: 'ci', mode: 'test' } });

export const UpdateApiKeyBody = z
  .object(KeyGuardFields)
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'Give at least one field to change')
  .meta({ id: 'UpdateApiKeyInput', example: { allowed_domains: ['example.com', '*.example.org'], allowed_records: ['_acme-challenge.example.com:TXT'] } });

export const ApiKeyPath = z.object({ key_id: z.string().min(1).max(64) });

export const ApiKeyPage = pageSchema(ApiKeySchema).meta({ id: 'ApiKeyPage' });

export const PresetsSchema = z
  .object({ data: z.array(z.object({ id: PresetName, scopes: z.array(z.enum(SCOPES)) })) })
  .meta({ id: 'ApiKeyPresets' });
