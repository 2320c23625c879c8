import type pg from 'pg';
import type { PlatformDeps } from '../../platformDeps.js';
import { withTransaction } from '../../db/pool.js';
import {
  abandonPendingOperation,
  findOperationById,
  findOperationByWorkflowId,
  insertOperation,
  WORKFLOW_INPUT_PURPOSE,
  type Operation,
  type OperationType,
} from './operations.repository.js';
import { sealJson, type SealedJson } from '../../db/sealedJson.js';
import { findDomainOfOrg, type NewDomain } from './domains.repository.js';
import { newDomainOperationRows } from './reservedOperation.repository.js';
import { ConflictError, NotFoundError, ServiceUnavailableError } from '../../errors.js';
import { PriceExceedsMaxError } from './errors.js';
import { findBalance, release, reserve, type PaidFor, type ReservationTerms } from '../billing/index.js';
import { derivedId } from '../../ids.js';
import { startOperationWorkflow } from './operationWorkflows.js';
import { emitOperationEnded } from './operationEvents.js';
import { changeDomainStatus } from './domainStatus.js';
import { DOMAIN_OPERATION_RETRIES, type OperationWorkflowInputs } from './operations.contract.js';
import { modeOf, type Mode } from '../../db/modeScope.js';

/** SQLSTATE of a unique index refusing a row: the name is held, or a twin wrote the operation first. */
const UNIQUE_VIOLATION = '23505';

interface OperationBasics<T extends OperationType> {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys'>;
  livemode: boolean;
  orgId: string;
  type: T;
  workflowId: string;
  /** operationRequestHash of what was asked: part of the operation's id, and stored on it. */
  requestHash: string;
  domainName: string;
  amount: number;
  /** The most the caller agreed to pay (`max_price`); a higher `amount` is 409 PRICE_EXCEEDS_MAX. */
  maxPrice?: number | undefined;
  /** The API key asking (principal.keyId), whose monthly spending limit applies; absent for sessions. */
  apiKeyId?: string | undefined;
  description: string;
  /** The stored `workflow_input`: what the operation type's workflow is started with (src/workflows.ts). */
  workflowInput: (ids: { operationId: string; domainId: string }) => OperationWorkflowInputs[T];
}

/** The domain an operation acts on: a new row (a registration, a transfer), or one it checks and locks. */
export type OperationDomain =
  | {
      /** The domain row to make, written with the operation; its id derives from the request. */
      newDomain: Omit<NewDomain, 'id'>;
      writeDomain?: never;
    }
  | {
      /** Checks the domain rows in the operation's transaction; returns the domain's id. */
      writeDomain: (tx: pg.PoolClient, ids: { operationId: string; domainId: string }) => Promise<string>;
      newDomain?: never;
    };

export type BeginOperationProps<T extends OperationType> = OperationBasics<T> & OperationDomain;

/**
 * The shared start of every paid domain operation: the domain and operation rows and the price's
 * reservation are written all or nothing by billing's reserve (in one statement for a new domain whose
 * price needs no limit counted, else in one transaction: a 402, a name conflict or any fault leaves no
 * row and no ledger entry), then the workflow is started. Ids derive from the workflow id (org, mode,
 * member, Idempotency-Key) and the request's hash: a retry, a concurrent twin or a retry after a
 * crash all end at the same operation and one charge, and another request can never land on it.
 */
export async function beginOperation<T extends OperationType>(props: BeginOperationProps<T>): Promise<Operation> {
  const { deps } = props;
  let operation: Operation;
  try {
    const { terms, paidFor } = operationRows(props);
    operation = await reserve({ db: deps.db, ...terms }, paidFor);
  } catch (err) {
    if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
    // A concurrent twin (same workflow id) committed first: answer with its operation.
    const twin = await existingOperation(deps, props.livemode, props.workflowId, props.requestHash);
    if (twin) return twin;
    // operations_one_open_renewal_idx: another renewal of the domain started at the same moment.
    if (props.type === 'domain.renew') throw new ConflictError('DOMAIN_STATE_CONFLICT', `A renewal of ${props.domainName} is already running`);
    throw await nameConflict(props);
  }
  try {
    await startOperationWorkflow(deps, operation);
  } catch (err) {
    return abandonUnstarted(deps, modeOf(props.livemode), operation, err);
  }
  return operation;
}

/** What a dry run found: the charge and the balance it would leave. */
export interface OperationQuote {
  amount: number;
  currency: 'USD';
  availableAfter: number;
}

/** Carries a dry run's quote out of its transaction, which it rolls back. */
class DryRunRollback extends Error {
  constructor(readonly quote: OperationQuote) {
    super('dry run');
  }
}

/**
 * A dry run of beginOperation: the same rows and reservation are written in a transaction that is
 * then rolled back, so every check (price, name conflicts, funds, spending limits under the balance
 * lock) answers exactly as the real request would, and nothing stays written or starts.
 */
export async function quoteOperation<T extends OperationType>(props: BeginOperationProps<T>): Promise<OperationQuote> {
  try {
    const { terms, paidFor } = operationRows(props);
    await withTransaction(props.deps.db, async (tx) => {
      await reserve({ tx, ...terms }, paidFor);
      const balance = await findBalance(tx, modeOf(props.livemode), props.orgId);
      throw new DryRunRollback({ amount: props.amount, currency: 'USD', availableAfter: balance.available });
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.quote;
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) throw await nameConflict(props);
    throw err;
  }
  throw new Error('unreachable: a dry run always rolls back');
}

/** Ids derive from the workflow id (org, mode, member, Idempotency-Key) and the request's hash. */
function operationIds(props: BeginOperationProps<OperationType>): { operationId: string; domainId: string } {
  const seed = `${props.livemode ? 'live' : 'test'}|${props.workflowId}|${props.requestHash}`;
  return { operationId: derivedId('op', seed), domainId: derivedId('dom', seed) };
}

/** 409 PRICE_EXCEEDS_MAX when the price is above the caller's `max_price`. */
function requireWithinMaxPrice(props: { amount: number; maxPrice?: number | undefined }): void {
  if (props.maxPrice !== undefined && props.amount > props.maxPrice) throw new PriceExceedsMaxError(props.amount, props.maxPrice);
}

/** The stored workflow input; every paid operation's workflow retries as production does (src/workflows.ts). */
function sealedWorkflowInput<T extends OperationType>(props: BeginOperationProps<T>, ids: { operationId: string; domainId: string }): SealedJson {
  return sealJson(props.deps.payloadKeys, WORKFLOW_INPUT_PURPOSE, { ...props.workflowInput(ids), retries: DOMAIN_OPERATION_RETRIES });
}

/**
 * What the operation's reservation holds, and the rows it pays for: a new domain's (the domain row and
 * the operation, which can share the reservation's one statement), or the operation of a domain that
 * `writeDomain` checks and locks first. 409 PRICE_EXCEEDS_MAX before anything is written.
 */
function operationRows<T extends OperationType>(props: BeginOperationProps<T>): { terms: ReservationTerms; paidFor: PaidFor<Operation> } {
  requireWithinMaxPrice(props);
  const ids = operationIds(props);
  const { orgId, livemode, amount } = props;
  const mode = modeOf(livemode);
  const terms = { orgId, livemode, operationId: ids.operationId, amount, description: props.description, apiKeyId: props.apiKeyId };
  const operation = { id: ids.operationId, orgId, type: props.type, domain: props.domainName, workflowId: props.workflowId, requestHash: props.requestHash, amount };
  const { newDomain, writeDomain } = props;
  if (newDomain) {
    const domain = { ...newDomain, id: ids.domainId };
    return { terms, paidFor: newDomainOperationRows(mode, { domain, operation: { ...operation, workflowInput: sealedWorkflowInput(props, ids) } }) };
  }
  return {
    terms,
    paidFor: {
      async write(tx) {
        const domainId = await writeDomain(tx, ids);
        const workflowInput = sealedWorkflowInput(props, { ...ids, domainId });
        return insertOperation(tx, mode, { ...operation, domainId, workflowInput });
      },
    },
  };
}

/**
 * A unique index refused the domain row: this org holds the name already, or (live mode only: test
 * names are held per organisation, migrations/1763803500000_test_names_per_org.sql) another org does.
 */
async function nameConflict(props: BeginOperationProps<OperationType>): Promise<ConflictError> {
  if (await findDomainOfOrg(props.deps.db, modeOf(props.livemode), props.orgId, props.domainName)) {
    return new ConflictError('DOMAIN_STATE_CONFLICT', `${props.domainName} is already registered or being registered by this organisation`);
  }
  return new ConflictError('DOMAIN_NOT_AVAILABLE', `${props.domainName} is held by another organisation`);
}

/**
 * The workflow could not be started (Temporal unreachable, or no answer). If no workflow has taken
 * the operation, it is abandoned (abandonOperation) and the caller gets a 503 that says nothing was
 * charged. If one already has (the start went through after all), the work goes on.
 */
async function abandonUnstarted(
  deps: BeginOperationProps<OperationType>['deps'],
  mode: Mode,
  operation: Operation,
  cause: unknown,
): Promise<Operation> {
  const detail = 'The work could not be started and nothing was charged; retry with a new Idempotency-Key';
  const abandoned = await abandonOperation(deps, operation, { code: 'WORKFLOW_ENGINE_UNAVAILABLE', detail });
  if (!abandoned) return (await findOperationByWorkflowId(deps.db, mode, operation.workflowId)) ?? operation;
  const error = new ServiceUnavailableError('WORKFLOW_ENGINE_UNAVAILABLE', detail, 5);
  error.cause = cause;
  throw error;
}

/**
 * Gives up a pending operation that no workflow has taken: it is marked failed, its reservation
 * released, and a new domain row (register, transfer) no longer holds the name; a renewed domain
 * stays as it was, and so does a domain whose DNSSEC change was abandoned (src/features/dns/dnssec.ts
 * reads its state back from the ended operation). False, touching nothing, when a workflow took it first. Safe to repeat.
 */
export async function abandonOperation(
  deps: Pick<PlatformDeps, 'db'>,
  operation: Operation,
  error: { code: string; detail: string },
): Promise<boolean> {
  const mode = modeOf(operation.livemode);
  // The operation's ending and its event are written together (src/features/domains/operationEvents.ts).
  const abandoned = await withTransaction(deps.db, async (tx) => {
    if (!(await abandonPendingOperation(tx, mode, operation.id, error))) return false;
    const ended = await findOperationById(tx, mode, operation.id);
    if (ended) await emitOperationEnded(tx, ended);
    return true;
  });
  if (!abandoned) return false;
  try {
    await release({ db: deps.db, operationId: operation.id });
  } catch (err) {
    // Operations written before reservations joined their transaction may have none.
    if (!(err instanceof NotFoundError)) throw err;
  }
  // Only a registration or a transfer made the domain row; a renewal or a DNSSEC change leaves it as it was.
  const madeDomain = operation.type === 'domain.register' || operation.type === 'domain.transfer';
  if (madeDomain && operation.domainId) await changeDomainStatus({ db: deps.db, mode, domainId: operation.domainId, to: 'failed' });
  return true;
}

/**
 * A retried request: the operation it started before, with its workflow (re)started idempotently.
 * The same member and Idempotency-Key with another request is 409 IDEMPOTENCY_KEY_REUSED, even once
 * the idempotency record has expired: nothing is reserved for it and the earlier operation is untouched.
 */
export async function existingOperation(
  deps: BeginOperationProps<OperationType>['deps'],
  livemode: boolean,
  workflowId: string,
  requestHash: string,
): Promise<Operation | undefined> {
  const existing = await findOperationByWorkflowId(deps.db, modeOf(livemode), workflowId);
  return existing && answerExisting(deps, existing, requestHash);
}

/** existingOperation for a caller that read the operation already (registration.repository.ts). */
export async function answerExisting(
  deps: BeginOperationProps<OperationType>['deps'],
  existing: Operation,
  requestHash: string,
): Promise<Operation> {
  if (existing.requestHash !== requestHash) {
    throw new ConflictError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request');
  }
  // Only a pending operation may still lack its workflow; a finished one is just answered again.
  if (existing.status === 'pending') await startOperationWorkflow(deps, existing);
  return existing;
}
