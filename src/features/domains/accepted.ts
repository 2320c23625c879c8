import type { AppDeps } from '../../deps.js';
import type { AppContext, IdempotentAnswer } from '../../http/context.js';
import { requirePrincipal } from '../../auth/authorize.js';
import { findOperationById, type Operation } from './operations.repository.js';
import { presentOperation } from './operation.presenter.js';
import { startOperationWorkflow } from './operationWorkflows.js';

/** 202 with the operation, and where to poll it (`Location`). */
function acceptedAnswer(operation: Operation): Required<IdempotentAnswer> {
  return {
    status: 202,
    headers: { Location: `/api/v1/orgs/${operation.orgId}/operations/${operation.id}` },
    body: presentOperation(operation),
  };
}

/** Answers acceptedAnswer: every route that starts or cancels an operation answers so. */
export function answerAccepted(ctx: AppContext, operation: Operation): void {
  const answer = acceptedAnswer(operation);
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.body = answer.body;
}

/**
 * For a request with an Idempotency-Key: stores its 202 while the operation's workflow starts
 * (beginOperation), instead of one more round trip after the start (docs/bench.md). A start that
 * fails ends the request otherwise, and the stored 202 is then removed (src/http/idempotency.ts).
 */
export function storeAcceptedWhileStarting(ctx: AppContext): ((operation: Operation) => Promise<void>) | undefined {
  const recorder = ctx.state.idempotentAnswer;
  return recorder && ((operation) => recorder.storeNow(acceptedAnswer(operation)));
}

/**
 * The route's beforeReplay, with storeAcceptedWhileStarting: a replayed 202 whose operation is still
 * pending has its workflow started (idempotently, as a retry without a stored answer would), in case
 * the request that stored the 202 died before its start went through. Otherwise the operation would
 * wait for the reconciler (src/features/strandedOperations).
 */
export async function startReplayedOperation(
  deps: Pick<AppDeps, 'db' | 'temporal' | 'config' | 'payloadKeys'>,
  ctx: AppContext,
  replayed: { status: number; body: unknown },
): Promise<void> {
  const { id, status } = (replayed.body ?? {}) as { id?: unknown; status?: unknown };
  if (replayed.status !== 202 || status !== 'pending' || typeof id !== 'string') return;
  const operation = await findOperationById(deps.db, { livemode: requirePrincipal(ctx.state).livemode }, id);
  if (operation?.status === 'pending') await startOperationWorkflow(deps, operation);
}
