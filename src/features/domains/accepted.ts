import type { AppContext } from '../../http/context.js';
import type { Operation } from './operations.repository.js';
import { presentOperation } from './operation.presenter.js';

/** 202 with the operation, and where to poll it (`Location`): every route that starts or cancels one answers so. */
export function answerAccepted(ctx: AppContext, operation: Operation): void {
  ctx.status = 202;
  ctx.set('Location', `/api/v1/orgs/${operation.orgId}/operations/${operation.id}`);
  ctx.body = presentOperation(operation);
}
