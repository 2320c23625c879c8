import { ApplicationFailure } from '@temporalio/activity';
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../logger.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { findOperationById, endOperation } from '../../features/domains/index.js';
import type { ApiError } from '../../errors.js';
import { derivedId } from '../../ids.js';
import { RESERVATION_STATE_CONFLICT } from '../../features/billing/index.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * The registrar did the work but the operation's reservation cannot be captured (it was released,
 * or never made): the money was not held, so the operation must not quietly succeed, and retrying
 * the capture can never succeed. The operation is marked failed, an error is logged and an audit
 * event written for an operator to settle by hand, and the returned failure is non-retryable.
 */
export async function failUncapturable(
  deps: { db: Db; logger: Logger },
  input: { operationId: string; livemode: boolean; domainId: string; registrarReference: string | null; cause: ApiError },
): Promise<ApplicationFailure> {
  const mode = modeOf(input.livemode);
  const detail = 'The work was done at the registrar but its price was not held; an operator has been alerted';
  const operation = await findOperationById(deps.db, mode, input.operationId);
  deps.logger.error(
    { operationId: input.operationId, orgId: operation?.orgId, domainId: input.domainId, registrarReference: input.registrarReference, cause: input.cause.message },
    'capture refused: operation done at the registrar without a held reservation',
  );
  // Derived id: a retried activity finds its event instead of writing a second one.
  await insertAuditEvent(deps.db, {
    id: derivedId('evt', `capture-conflict|${input.operationId}`),
    action: 'operation.capture_conflict',
    actorUserId: null,
    actorKeyId: null,
    orgId: operation?.orgId ?? null,
    targetType: 'operation',
    targetId: input.operationId,
    livemode: input.livemode,
    data: { domainId: input.domainId, registrarReference: input.registrarReference, reason: input.cause.message },
    requestId: null,
  });
  await endOperation({ db: deps.db, mode, operationId: input.operationId, ending: { status: 'failed', error: { code: RESERVATION_STATE_CONFLICT, detail } } });
  return ApplicationFailure.nonRetryable(detail, RESERVATION_STATE_CONFLICT);
}
