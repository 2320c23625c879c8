import { withTransaction, type Db } from '../../db/pool.js';
import { findApiKeyOfUser, updateApiKeyGuards, type ApiKeyGuards, type ApiKeyRecord } from '../../auth/apiKeys.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { ApiKeyVerifier } from '../../auth/apiKeyVerifier.js';
import type { Principal } from '../../auth/principal.js';
import { NotFoundError } from '../../errors.js';
import { guardsAudit, requireNarrowerGuards } from './keyGuards.js';

export interface UpdateApiKeyProps {
  db: Db;
  apiKeys: Pick<ApiKeyVerifier, 'invalidate'>;
  principal: Principal;
  keyId: string;
  changes: Partial<ApiKeyGuards>;
  requestId: string;
}

/**
 * Changes one of the caller's keys' spending limit and restrictions. The key as it ends up must be
 * at least as narrow as a guarded calling key; every api process drops its cached copy at once.
 */
export async function updateApiKey(props: UpdateApiKeyProps): Promise<ApiKeyRecord> {
  const { principal } = props;
  const updated = await withTransaction(props.db, async (tx) => {
    const key = await findApiKeyOfUser(tx, principal.user.id, props.keyId);
    // As for delete: another user's key, or one of the other mode for a key caller, is a missing one.
    if (!key || (principal.type === 'api_key' && key.mode !== principal.mode)) throw new NotFoundError('API key not found');
    requireNarrowerGuards(principal, { ...key, ...props.changes });
    const changed = (await updateApiKeyGuards(tx, key.id, props.changes))!;
    await auditCallerAction(tx, props, {
      action: 'api_key.updated',
      orgId: null,
      targetType: 'api_key',
      targetId: key.id,
      livemode: key.mode === 'live',
      data: { before: guardsAudit(key), after: guardsAudit(changed) },
    });
    return changed;
  });
  await props.apiKeys.invalidate(props.keyId);
  return updated;
}
