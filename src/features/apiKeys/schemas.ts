import { z } from 'zod';
import { KEY_PRESETS, SCOPES } from '../../auth/scopes.js';
import { canonicalCidr } from '../../http/cidr.js';
import { canonicalDomainPattern } from '../../auth/keyRestrictions.js';
import { ApiKeySchema } from './apiKey.presenter.js';
import { pageSchema } from '../../http/pagination.js';

/** Up to 100 entries, each made canonical by `canonical` (undefined: invalid, a field error at its index). */
function canonicalList(canonical: (entry: string) => string | undefined, what: string) {
  return z
    .array(z.string().min(1).max(300))
    .max(100)
    .transform((entries, ctx) => {
      const out = entries.map(canonical);
      out.forEach((value, i) => {
        if (value === undefined) ctx.addIssue({ code: 'custom', path: [i], message: `Must be ${what}`, params: { type: 'restriction_invalid' } });
      });
      return [...new Set(out.filter((value): value is string => value !== undefined))];
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
  allowed_ips: canonicalList(canonicalCidr, 'an IPv4 or IPv6 CIDR (or a single address)')
    .optional()
    .describe('CIDRs the key may be used from, e.g. `["203.0.113.0/24", "2001:db8::/32"]`; elsewhere 403 `IP_NOT_ALLOWED`. Empty: anywhere'),
  allowed_domains: canonicalList(canonicalDomainPattern, 'a domain name or *.suffix')
    .optional()
    .describe(
      'Domains the key may register, transfer, renew, change, read the auth code or DNS records of: exact names or `*.suffix` ' +
        '(every name under it); others 403 `DOMAIN_NOT_ALLOWED`. Empty: any domain',
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
  })
  .transform(({ preset, scopes, ...rest }) => ({ ...rest, scopes: (preset ? [...KEY_PRESETS[preset]] : scopes!) }))
  .meta({ id: 'CreateApiKeyInput', example: { name: 'CI deploys', preset: 'ci', mode: 'test' } });

export const UpdateApiKeyBody = z
  .object(KeyGuardFields)
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'Give at least one field to change')
  .meta({ id: 'UpdateApiKeyInput', example: { allowed_domains: ['example.com', '*.example.org'] } });

export const ApiKeyPath = z.object({ key_id: z.string().min(1).max(64) });

export const ApiKeyPage = pageSchema(ApiKeySchema).meta({ id: 'ApiKeyPage' });

export const PresetsSchema = z
  .object({ data: z.array(z.object({ id: PresetName, scopes: z.array(z.enum(SCOPES)) })) })
  .meta({ id: 'ApiKeyPresets' });
