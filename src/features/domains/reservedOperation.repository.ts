import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { unlimitedReservationCtes, unlimitedReservationParams, type UnlimitedReservation } from '../billing/reservations.repository.js';
import { newDomainCtes, newDomainParams, type NewDomain } from './domains.repository.js';
import { OPERATION_COLUMNS, type Operation, type OperationType } from './operations.repository.js';

export interface ReservedOperation {
  reservation: Omit<UnlimitedReservation, 'operationId' | 'orgId' | 'amount'>;
  domain: NewDomain;
  operation: Pick<Operation, 'id' | 'orgId' | 'workflowId' | 'workflowInput' | 'amount'> & { type: OperationType; requestHash: string };
}

/**
 * A new domain's operation in one statement, which commits on its own: the price reserved from a
 * balance without spending limits (unlimitedReservationCtes, the key lineage's lock and then the
 * balance row's), then the domain row with its contacts and the operation, written only if the
 * reservation was. One round trip and one commit where a transaction takes five (docs/bench.md).
 *
 * Undefined, with nothing written, when the reservation cannot be made this way (a short balance, a
 * spending limit, no balance yet): the caller takes the long way, which says why. A unique index
 * refusing a row (the name held, a twin's operation or reservation) fails the whole statement, with
 * the index's SQLSTATE, as it would fail the transaction.
 */
export async function insertReservedOperation(db: Queryable, mode: Mode, props: ReservedOperation): Promise<Operation | undefined> {
  const { operation, domain } = props;
  const reservation = { ...props.reservation, operationId: operation.id, orgId: operation.orgId, amount: operation.amount };
  const withKey = reservation.apiKeyId !== null;
  // Named, so each connection parses and plans it once (docs/operations.md); $1 to $7 are the reservation's, $8 to $19 the domain's, then the operation's.
  const { rows } = await db.query<Operation>({
    name: withKey ? 'reserved-operation-by-key' : 'reserved-operation',
    text: `WITH ${unlimitedReservationCtes(withKey, 'fail')}, ${newDomainCtes('$1', 8, 'posted')}, new_operation AS (
       INSERT INTO operations (livemode, id, org_id, type, status, domain, domain_id, workflow_id, workflow_input, request_hash, amount)
       SELECT $1, $2, $3, $20, 'pending', $10, new_domain.id, $21, $22, $23, $4 FROM new_domain
       RETURNING ${OPERATION_COLUMNS}
     )
     SELECT * FROM new_operation`,
    values: [
      ...unlimitedReservationParams(mode, reservation),
      ...newDomainParams(domain),
      operation.type, operation.workflowId, JSON.stringify(operation.workflowInput), operation.requestHash,
    ],
  });
  return rows[0];
}
