import { defineRoute } from '../../http/route.js';
import type { PlatformDeps } from '../../platformDeps.js';
import { KEY_PRESETS } from '../../auth/scopes.js';
import { listApiKeysOfUser } from '../../auth/apiKeys.js';
import { decodeCursor, PaginationQuery, toPage } from '../../http/pagination.js';
import { ApiKeySchema, CreatedApiKeySchema, presentApiKey, presentCreatedApiKey } from './apiKey.presenter.js';
import { updateApiKey } from './updateApiKey.js';
import type { ApiKeyGuards } from '../../auth/apiKeys.js';
import { createApiKey } from './createApiKey.js';
import { deleteApiKey } from './deleteApiKey.js';
import { ApiKeyPage, ApiKeyPath, CreateApiKeyBody, PresetsSchema, UpdateApiKeyBody } from './schemas.js';

export type ApiKeyRouteDeps = Pick<PlatformDeps, 'db' | 'keyHashSecret' | 'keyMisses' | 'apiKeys'>;

export function apiKeyRoutes(deps: ApiKeyRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/me/api-keys',
      operationId: 'createApiKey',
      summary: 'Create an API key; its secret is returned this once',
      description:
        'A key acts as its creator, limited to its scopes and mode. An API key can create keys only with ' +
        '`keys:write`, only within its own scopes, and only of its own mode.',
      tags: ['api keys'],
      scope: 'keys:write',
      request: { body: CreateApiKeyBody },
      responses: { 201: { description: 'Created; store `key` in a secrets manager now', schema: CreatedApiKeySchema } },
      errors: { 409: 'The caller already holds 100 active keys (`KEY_LIMIT_REACHED`); delete one first' },
      handler: async (ctx, { body, principal, requestId }) => {
        const { record, key } = await createApiKey({
          db: deps.db,
          keyHashSecret: deps.keyHashSecret,
          keyMisses: deps.keyMisses,
          principal: principal,
          name: body.name,
          scopes: body.scopes,
          mode: body.mode,
          guards: keyGuardsOf(body),
          requestId,
        });
        ctx.status = 201;
        ctx.set('Cache-Control', 'no-store');
        ctx.body = presentCreatedApiKey(record, key);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/me/api-keys',
      operationId: 'listApiKeys',
      summary: "The caller's keys, newest first, with prefix and metadata (never the secret)",
      description: 'An API key sees the keys of its own mode; a session sees all.',
      tags: ['api keys'],
      scope: 'keys:read',
      request: { query: PaginationQuery },
      responses: { 200: { description: 'A page of keys', schema: ApiKeyPage } },
      handler: async (ctx, { query, principal }) => {
        const rows = await listApiKeysOfUser(deps.db, {
          userId: principal.user.id,
          mode: principal.type === 'api_key' ? principal.mode : undefined,
          limit: query.limit,
          after: decodeCursor(query.cursor),
        });
        ctx.body = toPage(rows, query.limit, (key) => ({ createdAt: key.createdAt, id: key.id }), presentApiKey);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/me/api-keys/presets',
      operationId: 'listApiKeyPresets',
      summary: 'Scope sets pre-filled per use case (CI, monitoring, registrar tooling, certificates)',
      tags: ['api keys'],
      scope: 'keys:read',
      responses: { 200: { description: 'The presets', schema: PresetsSchema } },
      handler: (ctx) => {
        ctx.body = { data: Object.entries(KEY_PRESETS).map(([id, scopes]) => ({ id, scopes })) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api/v1/me/api-keys/{key_id}',
      operationId: 'updateApiKey',
      summary: "Change a key's monthly spending limit or restrictions",
      description:
        'Takes effect on every api process at once. An API key may change keys of its own mode only, and a restricted key ' +
        'only to restrictions at least as narrow as its own.',
      tags: ['api keys'],
      scope: 'keys:write',
      request: { path: ApiKeyPath, body: UpdateApiKeyBody },
      responses: { 200: { description: 'The key as changed', schema: ApiKeySchema } },
      handler: async (ctx, { path, body, principal, requestId }) => {
        const key = await updateApiKey({ db: deps.db, apiKeys: deps.apiKeys, principal, keyId: path.key_id, changes: keyGuardsOf(body), requestId });
        ctx.body = presentApiKey(key);
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/me/api-keys/{key_id}',
      operationId: 'deleteApiKey',
      summary: 'Delete a key; requests using it get 401 within seconds',
      description: 'Rotation is: create a new key, deploy it, delete the old one.',
      tags: ['api keys'],
      scope: 'keys:write',
      request: { path: ApiKeyPath },
      responses: { 204: { description: 'Deleted' } },
      handler: async (ctx, { path, principal, requestId }) => {
        await deleteApiKey({
          db: deps.db,
          apiKeys: deps.apiKeys,
          principal: principal,
          keyId: path.key_id,
          requestId,
        });
        ctx.status = 204;
      },
    }),
  ];
}

/** The guard fields a body gave, in the repository's terms (absent fields stay absent). */
function keyGuardsOf(body: {
  monthly_spend_limit?: number | null | undefined;
  allowed_ips?: string[] | undefined;
  allowed_domains?: string[] | undefined;
  allowed_records?: string[] | undefined;
}): Partial<ApiKeyGuards> {
  return {
    ...(body.monthly_spend_limit !== undefined ? { monthlySpendLimit: body.monthly_spend_limit } : {}),
    ...(body.allowed_ips !== undefined ? { allowedIps: body.allowed_ips } : {}),
    ...(body.allowed_domains !== undefined ? { allowedDomains: body.allowed_domains } : {}),
    ...(body.allowed_records !== undefined ? { allowedRecords: body.allowed_records } : {}),
  };
}
