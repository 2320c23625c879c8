import { withTransaction, type Db } from '../../db/pool.js';
import { insertApiKey, lockAndCountActiveApiKeys, type ApiKeyGuards, type ApiKeyRecord } from '../../auth/apiKeys.js';
import { guardsAudit, requireNarrowerGuards } from './keyGuards.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { generateApiKey, hashApiKey, type KeyMode } from '../../auth/apiKeyFormat.js';
import { ForbiddenError, InsufficientScopeError } from '../../auth/errors.js';
import type { Principal } from '../../auth/principal.js';
import type { Scope } from '../../auth/scopes.js';
import { newId } from '../../ids.js';
import { ConflictError } from '../../errors.js';
import type { ApiKeyMisses } from '../../auth/apiKeyMisses.js';

/** Active keys one user may hold: each key has its own rate-limit pools, so keys must not be free. */
export const MAX_ACTIVE_KEYS_PER_USER = 100;

export interface CreateApiKeyProps {
  db: Db;
  keyHashSecret: string;
  /** Told about the new key's hash, so no process answers it from a cached miss. */
  keyMisses: Pick<ApiKeyMisses, 'created'>;
  principal: Principal;
  name: string;
  scopes: Scope[];
  /** Defaults to the caller's mode. */
  mode: KeyMode | undefined;
  /** Spending limit and restrictions; a restricted key may only create keys at least as narrow (keyGuards.ts). */
  guards?: Partial<ApiKeyGuards>;
  requestId: string;
}

/**
 * Creates a key for the caller. A key may create keys only within its own scopes and of its own
 * mode, so no key can mint a wider one; at most MAX_ACTIVE_KEYS_PER_USER active keys per user
 * (409 `KEY_LIMIT_REACHED`). A key created with a key spends its creator's monthly budget too, so
 * a key's limit bounds everything made with it. Returns the secret, which is never stored.
 */
export async function createApiKey(props: CreateApiKeyProps): Promise<{ record: ApiKeyRecord; key: string }> {
  const { principal } = props;
  const mode = props.mode ?? principal.mode;
  if (principal.type === 'api_key') {
    if (mode !== principal.mode) {
      throw new ForbiddenError(`A ${principal.mode} API key can only create ${principal.mode} keys`);
    }
    const missing = props.scopes.find((scope) => !principal.scopes.has(scope));
    if (missing) throw new InsufficientScopeError(missing);
  }
  const guards = props.guards ?? {};
  requireNarrowerGuards(principal, guards);
  const { key, prefix } = generateApiKey(mode);
  const secretHash = hashApiKey(props.keyHashSecret, key);
  const record = await withTransaction(props.db, async (tx) => {
    if ((await lockAndCountActiveApiKeys(tx, principal.user.id)) >= MAX_ACTIVE_KEYS_PER_USER) {
      throw new ConflictError(
        'KEY_LIMIT_REACHED',
        `You already have ${MAX_ACTIVE_KEYS_PER_USER} active API keys, the most one user may hold; delete one you no longer use first`,
      );
    }
    const created = await insertApiKey(tx, {
      id: newId('key'),
      userId: principal.user.id,
      name: props.name,
      scopes: [...new Set(props.scopes)],
      mode,
      prefix,
      secretHash,
      // A key made with a key joins its lineage: every limit above it binds it too (ledger.ts).
      parentKeyId: principal.type === 'api_key' ? (principal.keyId ?? null) : null,
      ...guards,
    });
    await auditCallerAction(tx, props, {
      action: 'api_key.created',
      orgId: null,
      targetType: 'api_key',
      targetId: created.id,
      livemode: mode === 'live',
      data: { name: created.name, scopes: created.scopes, mode, ...guardsAudit(created) },
    });
    return created;
  });
  await props.keyMisses.created(secretHash.toString('hex'));
  return { record, key };
}
