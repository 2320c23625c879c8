import type { Queryable } from '../../db/pool.js';
import type { Mode } from '../../db/modeScope.js';
import { OPERATION_COLUMNS, type Operation } from './operations.repository.js';

/** What a registration must know before it writes anything, read in one statement. */
export interface RegistrationFacts {
  /** The operation this workflow id started before: the request is a retry. */
  operation: Operation | undefined;
  /** Of the contact ids asked for, those the organisation has in this mode. */
  foundContactIds: string[];
  /** The organisation already holds the name (a domain neither failed nor deleted). */
  nameHeld: boolean;
}

/**
 * The earlier operation of the workflow id, the contacts the organisation has among `contactIds`,
 * and whether it holds `name` already: one round trip where a registration used to spend one on
 * each (docs/bench.md). Every part is scoped to the caller's mode (`$1`), as ModeScopedTable does.
 */
export async function findRegistrationFacts(
  db: Queryable,
  mode: Mode,
  props: { workflowId: string; orgId: string; contactIds: string[]; name: string },
): Promise<RegistrationFacts> {
  // Named, so each connection parses and plans it once (docs/operations.md).
  const { rows } = await db.query<Operation & { foundContactIds: string[]; nameHeld: boolean }>({
    name: 'registration-facts',
    text: `SELECT ${OPERATION_COLUMNS},
       ARRAY(SELECT c.id FROM contacts c WHERE c.livemode = $1 AND c.org_id = $3 AND c.id = ANY($4::text[])) AS "foundContactIds",
       EXISTS (SELECT 1 FROM domains d WHERE d.livemode = $1 AND d.org_id = $3 AND d.name = $5 AND d.status NOT IN ('failed', 'deleted')) AS "nameHeld"
     FROM (SELECT 1) AS one
     LEFT JOIN LATERAL (SELECT * FROM operations WHERE livemode = $1 AND workflow_id = $2 LIMIT 1) AS found ON true`,
    values: [mode.livemode, props.workflowId, props.orgId, props.contactIds, props.name],
  });
  const { foundContactIds, nameHeld, ...operation } = rows[0]!;
  return { operation: operation.id === null ? undefined : operation, foundContactIds, nameHeld };
}
