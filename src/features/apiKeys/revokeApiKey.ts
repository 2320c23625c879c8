import { withTransaction, type Db } from '../../db/pool.js';
import { markApiKeyRevoked, type ApiKeyRecord } from '../../auth/apiKeys.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import type { ApiKeyVerifier } from '../../auth/apiKeyVerifier.js';
import { listOrgIdsKeyActedIn } from '../../auth/apiKeyOrganizations.js';
import { presentRevokedApiKey } from './apiKey.presenter.js';
import { emitEvent } from '../webhooks/index.js';

export interface RevokeApiKeyProps {
  db: Db;
  apiKeys: Pick<ApiKeyVerifier, 'invalidate'>;
  keyId: string;
  reason: string;
  sourceUrl: string | null;
  requestId: string | null;
}

/**
 * Revokes an active key (the leak-detection path; there is no opt-out). Idempotent: a key that is
 * no longer active is left as it is and undefined is returned. The key stays in its owner's list.
 */
export async function revokeApiKey(props: RevokeApiKeyProps): Promise<ApiKeyRecord | undefined> {
  const revoked = await withTransaction(props.db, async (tx) => {
    const record = await markApiKeyRevoked(tx, { id: props.keyId, reason: props.reason, sourceUrl: props.sourceUrl });
    if (!record) return undefined;
    await insertAuditEvent(tx, {
      action: 'api_key.revoked',
      actorUserId: null,
      actorKeyId: null,
      orgId: null,
      targetType: 'api_key',
      targetId: record.id,
      livemode: record.mode === 'live',
      data: { reason: props.reason, source_url: props.sourceUrl },
      requestId: props.requestId,
    });
    // Keys belong to users, events to organisations: only the organisations the key acted in hear of
    // it, and only what identifies it (the owner is e-mailed by the leak workflow).
    for (const orgId of await listOrgIdsKeyActedIn(tx, record.id)) {
      await emitEvent({
        db: tx,
        orgId,
        livemode: record.mode === 'live',
        type: 'api_key.revoked',
        object: presentRevokedApiKey(record),
        dedupeSeed: `api-key-revoked|${record.id}|${orgId}`,
      });
    }
    return record;
  });
  await props.apiKeys.invalidate(props.keyId);
  return revoked;
}
