import type { PlatformDeps } from '../../platformDeps.js';
import type { DnsProviders } from './provider/index.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import type { IdempotencyIdentity } from '../../http/idempotencyKeys.js';
import { withTransaction, type Queryable } from '../../db/pool.js';
import { sealJson } from '../../db/sealedJson.js';
import { ConflictError, ServiceUnavailableError } from '../../errors.js';
import { derivedId, randomBase62 } from '../../ids.js';
import { auditCallerAction } from '../../audit/auditEvents.js';
import { activeDomainNamed, domainNamed, findOperationById, insertOperation, WORKFLOW_INPUT_PURPOSE, type Operation, operationRequestHash, operationWorkflowId, requester, startOperationWorkflow, abandonOperation, existingOperation } from '../domains/index.js';
import { findDnssecZone, lockDnssecZone, updateDnssecZone, type DnssecStatus, type DnssecZone } from './dnssec.repository.js';
import { DNSSEC_RETRIES, type DisableDnssecInput, type EnableDnssecInput } from './dnssec.contract.js';
import { presentDnssec } from './dnssec.presenter.js';
import { isServed } from './zones.js';
import { modeOf } from '../../db/modeScope.js';

/**
 * DNSSEC of a domain's zone (docs/api-guide.md, DNSSEC). POST signs it and, in live mode, publishes
 * the DS at the registrar; DELETE withdraws the DS first and unsigns only once the parent's DS TTL
 * has passed. Both are operations (202, polled like a registration) carried out by a workflow whose
 * id derives from the request, so a retried request finds its operation.
 */
export type DnssecDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys'>;

/**
 * Test mode publishes no DS anywhere, so nothing needs to expire before unsigning; it still waits
 * a moment, so a client's polling sees `removing` as it would live.
 */
export const TEST_DS_REMOVAL_WAIT_MS = 2_000;

/** What each change needs of the state it starts from, and the state it moves to while it runs. */
const CHANGES = {
  enable: { from: 'off', during: 'signing', type: 'dnssec.enable', kind: 'dnssec-enable' },
  disable: { from: 'active', during: 'removing', type: 'dnssec.disable', kind: 'dnssec-disable' },
} as const;
export type DnssecChange = keyof typeof CHANGES;

/**
 * The state as it stands. A change whose operation ended without its workflow (abandoned: it could
 * never be started) left its transitional status behind: the zone is then as it was before.
 */
export async function effectiveStatus(db: Queryable, zone: DnssecZone | undefined): Promise<DnssecStatus> {
  if (!zone) return 'off';
  if (zone.status !== 'signing' && zone.status !== 'removing') return zone.status;
  const operation = zone.operationId ? await findOperationById(db, modeOf(zone.livemode), zone.operationId) : undefined;
  if (operation && (operation.status === 'pending' || operation.status === 'running')) return zone.status;
  return zone.status === 'signing' ? 'off' : 'active';
}

export type ReadDnssecDeps = Pick<PlatformDeps, 'db'> & { dnsProviders: DnsProviders };

export async function readDnssec(deps: ReadDnssecDeps, principal: Principal, orgId: string, name: DomainName) {
  const domain = await domainNamed(deps.db, modeOf(principal.livemode), orgId, name);
  // A registration that ended took its zone with it (docs/api-guide.md, Operations and workflows).
  const zone = domain.status === 'deleted' || domain.status === 'failed' ? undefined : await findDnssecZone(deps.db, modeOf(principal.livemode), domain.id);
  return presentDnssec(domain.name, principal.livemode, zone, await effectiveStatus(deps.db, zone), await isServed(deps.db, deps.dnsProviders, domain));
}

export interface ChangeDnssecProps {
  deps: DnssecDeps;
  principal: Principal;
  orgId: string;
  domainName: DomainName;
  change: DnssecChange;
  idempotency: IdempotencyIdentity | undefined;
  requestId: string;
}

/**
 * Starts signing (`enable`) or unsigning (`disable`): 409 DNSSEC_STATE_CONFLICT unless the zone is
 * `off` (enable) or `active` (disable), 409 DOMAIN_STATE_CONFLICT unless the domain is active. The
 * state moves to `signing` or `removing` in the transaction that writes the operation, with the
 * domain's DNSSEC row locked, so two changes of one zone can never both start.
 */
export async function changeDnssec(props: ChangeDnssecProps): Promise<Operation> {
  const { deps, principal } = props;
  const spec = CHANGES[props.change];
  const workflowId = operationWorkflowId(spec.kind, requester(props), () => randomBase62(16));
  const requestHash = operationRequestHash({ type: spec.type, name: props.domainName.name });
  const existing = await existingOperation(deps, principal.livemode, workflowId, requestHash);
  if (existing) return existing;

  let operation: Operation;
  try {
    operation = await withTransaction(deps.db, (tx) => writeChange(tx, props, workflowId, requestHash));
  } catch (err) {
    // A concurrent twin (same workflow id) committed first: answer with its operation.
    if ((err as { code?: string }).code !== '23505') throw err;
    const twin = await existingOperation(deps, principal.livemode, workflowId, requestHash);
    if (!twin) throw err;
    return twin;
  }
  try {
    await startOperationWorkflow(deps, operation);
  } catch (err) {
    // Nothing ran: the operation is abandoned, and effectiveStatus reads the zone as it was.
    if (!(await abandonOperation(deps, operation, { code: 'WORKFLOW_ENGINE_UNAVAILABLE', detail: 'The change could not be started; retry' }))) return operation;
    const error = new ServiceUnavailableError('WORKFLOW_ENGINE_UNAVAILABLE', 'The change could not be started; nothing changed. Retry with a new Idempotency-Key', 5);
    error.cause = err;
    throw error;
  }
  return operation;
}

/** The operation and the state it moves to, in the caller's transaction; the workflow is started after. Exported for tests. */
export async function writeChange(tx: Queryable, props: ChangeDnssecProps, workflowId: string, requestHash: string): Promise<Operation> {
  const { deps, principal, orgId } = props;
  const spec = CHANGES[props.change];
  const mode = modeOf(principal.livemode);
  const domain = await activeDomainNamed(tx, mode, orgId, props.domainName, props.change === 'enable' ? 'DNSSEC is turned on' : 'DNSSEC is turned off');
  const zone = await lockDnssecZone(tx, mode, { domainId: domain.id, orgId });
  const status = await effectiveStatus(tx, zone);
  if (status !== spec.from) {
    throw new ConflictError('DNSSEC_STATE_CONFLICT', `DNSSEC of ${domain.name} is ${status}; it can be turned ${props.change === 'enable' ? 'on only while off' : 'off only while active'}`);
  }
  const operationId = derivedId('op', `${principal.livemode ? 'live' : 'test'}|${workflowId}|${requestHash}`);
  const base = { operationId, orgId, livemode: principal.livemode, domainId: domain.id, name: domain.name, retries: DNSSEC_RETRIES };
  const input: EnableDnssecInput | DisableDnssecInput =
    props.change === 'enable' ? base : { ...base, dsRemovalWaitMs: principal.livemode ? deps.config.dnssec.dsRemovalWaitMs : TEST_DS_REMOVAL_WAIT_MS };
  const operation = await insertOperation(tx, mode, {
    id: operationId,
    orgId,
    type: spec.type,
    domain: domain.name,
    domainId: domain.id,
    workflowId,
    workflowInput: sealJson(deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, input),
    requestHash,
    amount: 0,
  });
  await updateDnssecZone(tx, mode, domain.id, { status: spec.during, operationId });
  await auditCallerAction(tx, props, {
    action: props.change === 'enable' ? 'dnssec.enabled' : 'dnssec.disabled',
    orgId,
    targetType: 'domain',
    targetId: domain.id,
    data: { domain: domain.name, operation_id: operationId, livemode: principal.livemode },
  });
  return operation;
}
