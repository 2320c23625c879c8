import { z } from 'zod';
import type { ApiKeyRecord } from '../../auth/apiKeys.js';
import { SCOPES } from '../../auth/scopes.js';
import { RevokedApiKeySchema } from '../webhooks/index.js';

/** The fields an `api_key.revoked` event shows too (RevokedApiKey), declared once in the event payload catalogue. */
const { id, prefix, name } = RevokedApiKeySchema.shape;

export const ApiKeySchema = z
  .object({
    id,
    name,
    scopes: z.array(z.enum(SCOPES)),
    mode: z.enum(['live', 'test']),
    prefix,
    status: z.enum(['active', 'revoked']),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable().describe('Updated within a minute of use'),
    revoked_at: z.iso.datetime().nullable(),
    revoked_reason: z.string().nullable().meta({ example: null }),
    monthly_spend_limit: z.number().int().nullable().describe("Minor units the key's operations may reserve per calendar month (UTC); null: no limit"),
    allowed_ips: z.array(z.string()).meta({ example: ['203.0.113.0/24'] }).describe('CIDRs the key may be used from (canonical form); empty: any address'),
    allowed_domains: z.array(z.string()).meta({ example: ['example.com', '*.example.org'] }).describe('Exact names or `*.suffix` patterns the key may act on (punycode); empty: any domain'),
    allowed_records: z
      .array(z.string())
      .meta({ example: ['_acme-challenge.example.com:TXT', '_acme-challenge.*.example.com:TXT'] })
      .describe('`<name>:<TYPE>` patterns of the only DNS records the key may change (canonical form); empty: no such restriction'),
  })
  .meta({ id: 'ApiKey' });

export const CreatedApiKeySchema = ApiKeySchema.pick({
  id: true,
  name: true,
  scopes: true,
  mode: true,
  prefix: true,
  created_at: true,
  monthly_spend_limit: true,
  allowed_ips: true,
  allowed_domains: true,
  allowed_records: true,
})
  .extend({ key: z.string().describe('The full secret. Returned only here, once: store it in a secrets manager.') })
  .meta({ id: 'CreatedApiKey' });

/** A revoked key as its `api_key.revoked` event shows it (src/features/webhooks/eventPayloads.ts). */
export function presentRevokedApiKey(key: ApiKeyRecord): z.infer<typeof RevokedApiKeySchema> {
  return { id: key.id, prefix: key.prefix, name: key.name };
}

/** Never includes the secret or its hash: the list shows what identifies a key, nothing that unlocks it. */
export function presentApiKey(key: ApiKeyRecord): z.infer<typeof ApiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes as z.infer<typeof ApiKeySchema>['scopes'],
    mode: key.mode,
    prefix: key.prefix,
    status: key.status === 'revoked' ? 'revoked' : 'active',
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    revoked_reason: key.revokedReason,
    ...presentGuards(key),
  };
}

export function presentCreatedApiKey(key: ApiKeyRecord, secret: string): z.infer<typeof CreatedApiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes as z.infer<typeof CreatedApiKeySchema>['scopes'],
    mode: key.mode,
    prefix: key.prefix,
    key: secret,
    created_at: key.createdAt.toISOString(),
    ...presentGuards(key),
  };
}

function presentGuards(key: ApiKeyRecord): Pick<z.infer<typeof ApiKeySchema>, 'monthly_spend_limit' | 'allowed_ips' | 'allowed_domains' | 'allowed_records'> {
  return { monthly_spend_limit: key.monthlySpendLimit, allowed_ips: key.allowedIps, allowed_domains: key.allowedDomains, allowed_records: key.allowedRecords };
}
