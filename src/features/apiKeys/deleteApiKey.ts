import { withTransaction, type Db } from '../../db/pool.js';
import { findApiKeyOfUser, markApiKeyDeleted } from '../../auth/apiKeys.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import type { ApiKeyVerifier } from '../../auth/apiKeyVerifier.js';
import type { Principal } from '../../auth/principal.js';
import { NotFoundError } from '../../errors.js';

export interface DeleteApiKeyProps {
  db: Db;
  apiKeys: ApiKeyVerifier;
  principal: Principal;
  keyId: string;
  requestId: string;
}

/** Deletes one of the caller's keys; it stops working on every api process at once. */
export async function deleteApiKey(props: DeleteApiKeyProps): Promise<void> {
  const { principal } = props;
  await withTransaction(props.db, async (tx) => {
    const key = await findApiKeyOfUser(tx, principal.user.id, props.keyId);
    // Another user's key, or (for a key caller) one of the other mode, looks exactly like a missing one.
    if (!key || (principal.type === 'api_key' && key.mode !== principal.mode)) throw new NotFoundError('API key not found');
    await markApiKeyDeleted(tx, key.id);
    await auditCallerAction(tx, props, {
      action: 'api_key.deleted',
      orgId: null,
      targetType: 'api_key',
      targetId: key.id,
      livemode: key.mode === 'live',
    });
  });
  await props.apiKeys.invalidate(props.keyId);
}
