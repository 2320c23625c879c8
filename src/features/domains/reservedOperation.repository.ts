import type { Mode } from '../../db/modeScope.js';
import type { PaidFor } from '../billing/index.js';
import { insertDomainWithContacts, newDomainCtes, newDomainParams, type NewDomain } from './domains.repository.js';
import { insertOperation, OPERATION_COLUMNS, type Operation, type OperationType } from './operations.repository.js';

export interface NewDomainOperation {
  domain: NewDomain;
  operation: Pick<Operation, 'id' | 'orgId' | 'domain' | 'workflowId' | 'workflowInput' | 'amount'> & { type: OperationType; requestHash: string };
}

/**
 * A new domain's operation as what its reservation pays for (billing's reserve): the domain row with
 * its contacts, then the operation, in the reservation's transaction or as CTEs of its one statement
 * (one round trip and one commit where a transaction takes five, docs/bench.md), written only with it.
 * A unique index refusing a row (the name held, a twin's operation) fails the statement, or the
 * transaction, with the index's SQLSTATE.
 */
export function newDomainOperationRows(mode: Mode, { domain, operation }: NewDomainOperation): PaidFor<Operation> {
  const row = { ...operation, domainId: domain.id };
  return {
    async write(tx) {
      await insertDomainWithContacts(tx, mode, domain);
      return insertOperation(tx, mode, row);
    },
    inOneStatement: {
      name: 'reserved-operation',
      // `$first` is the mode, then the domain's twelve (newDomainParams), then the operation's.
      ctes: (first) => {
        const $ = (i: number) => `$${first + i}`;
        return `${newDomainCtes($(0), first + 1, 'reserved')}, new_operation AS (
       INSERT INTO operations (livemode, id, org_id, type, status, domain, domain_id, workflow_id, workflow_input, request_hash, amount)
       SELECT ${$(0)}, ${$(13)}, ${$(14)}, ${$(15)}, 'pending', ${$(16)}, new_domain.id, ${$(17)}, ${$(18)}, ${$(19)}, ${$(20)} FROM new_domain
       RETURNING ${OPERATION_COLUMNS}
     )`;
      },
      values: [
        mode.livemode,
        ...newDomainParams(domain),
        row.id, row.orgId, row.type, row.domain, row.workflowId, JSON.stringify(row.workflowInput), row.requestHash, row.amount,
      ],
      answer: 'new_operation',
    },
  };
}
