import type { Db } from '../../db/pool.js';
import { findOperation, type Operation } from './operations.repository.js';
import { requireDomainAllowed } from '../../auth/authorize.js';
import type { Principal } from '../../auth/principal.js';
import { NotFoundError } from '../../errors.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * One operation of the caller's organisation and mode, for a route that reads or acts on it: 404
 * when there is none, and 403 DOMAIN_NOT_ALLOWED when the caller's key may not act on its domain, as
 * for the domain's own routes (polling or cancelling another domain's transfer is acting on that
 * domain; listing operations is not, as listing domains is not).
 */
export async function operationOfCaller(db: Db, principal: Principal, orgId: string, operationId: string): Promise<Operation> {
  const operation = await findOperation(db, modeOf(principal.livemode), orgId, operationId);
  if (!operation) throw new NotFoundError('Operation not found');
  requireDomainAllowed(principal, operation.domain);
  return operation;
}
