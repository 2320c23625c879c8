import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { AppDeps } from '../../deps.js';
import { withTransaction } from '../../db/pool.js';
import { findContact } from '../../db/repositories/contacts.js';
import { findDomainOfOrg, insertDomain, linkDomainContacts } from '../../db/repositories/domains.js';
import { findOperationByWorkflowId, insertOperation, type Operation } from '../../db/repositories/operations.js';
import { ConflictError, ValidationError, type FieldError } from '../../errors.js';
import { derivedId, randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { IdempotencyIdentity } from '../../db/repositories/idempotencyKeys.js';
import { release, reserve } from '../billing/ledger.js';
import { DomainKey, LivemodeKey, OperationTypeKey, OrgIdKey } from '../../temporal/searchAttributes.js';
import type { RegisterDomainInput } from '../../../workflows/registerDomain.js';

/** How often a pending registration is checked: seconds in test mode, minutes against a real registry. */
export const REGISTRATION_POLL_MS = { test: 1_000, live: 10 * 60_000 };

export interface RegisterDomainProps {
  deps: Pick<AppDeps, 'db' | 'availability' | 'temporal' | 'config'>;
  principal: Principal;
  orgId: string;
  idempotency: IdempotencyIdentity | undefined;
  body: {
    name: string;
    years: number;
    registrant_contact_id: string;
    admin_contact_id?: string | undefined;
    tech_contact_id?: string | undefined;
    nameservers?: string[] | undefined;
    auto_renew?: boolean | undefined;
  };
}

async function checkContacts(props: RegisterDomainProps): Promise<void> {
  const mode = { livemode: props.principal.livemode };
  const errors: FieldError[] = [];
  for (const field of ['registrant_contact_id', 'admin_contact_id', 'tech_contact_id'] as const) {
    const id = props.body[field];
    if (id && !(await findContact(props.deps.db, mode, { orgId: props.orgId, id }))) {
      errors.push({ loc: ['body', field], msg: 'No such contact in this organisation', type: 'contact_not_found' });
    }
  }
  if (errors.length) throw new ValidationError(errors);
}

/**
 * Registers a domain: everything that can be decided now is answered now (422, 409, 402 with the
 * price reserved first), then a workflow does the rest. Its id derives from the Idempotency-Key, and
 * so do the operation and domain ids, so a retry (even after a crash) finds the same work.
 */
export async function registerDomain(props: RegisterDomainProps): Promise<Operation> {
  const { deps, principal, orgId, body } = props;
  const mode = { livemode: principal.livemode };
  const workflowId = `register:${orgId}:${props.idempotency?.key ?? `auto-${randomBase62(16)}`}`;
  const seed = `${mode.livemode ? 'live' : 'test'}|${workflowId}`;
  const existing = await findOperationByWorkflowId(deps.db, mode, workflowId);
  if (existing) {
    await startRegistrationWorkflow(deps, existing);
    return existing;
  }

  const answer = await deps.availability.check({ input: body.name, livemode: mode.livemode, loc: ['body', 'name'] });
  await checkContacts(props);
  if (await findDomainOfOrg(deps.db, mode, orgId, answer.name)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${answer.name} is already registered or being registered by this organisation`);
  }
  if (!answer.available || !answer.price) throw new ConflictError('DOMAIN_NOT_AVAILABLE', `${answer.name} is not available`);

  const operationId = derivedId('op', seed);
  const domainId = derivedId('dom', seed);
  const amount = answer.price.amount * body.years;
  await reserve({
    db: deps.db,
    orgId,
    livemode: mode.livemode,
    operationId,
    amount,
    description: `Registration of ${answer.name} for ${body.years} year${body.years > 1 ? 's' : ''}`,
  });

  const input: RegisterDomainInput = {
    operationId,
    orgId,
    livemode: mode.livemode,
    domainId,
    name: answer.name,
    years: body.years,
    registrantContactId: body.registrant_contact_id,
    nameservers: body.nameservers ?? [],
    autoRenew: body.auto_renew ?? false,
    premiumPriceCents: answer.premium ? answer.price.amount : null,
    pollIntervalMs: mode.livemode ? REGISTRATION_POLL_MS.live : REGISTRATION_POLL_MS.test,
  };
  let operation: Operation;
  try {
    operation = await withTransaction(deps.db, async (tx) => {
      await insertDomain(tx, mode, {
        id: domainId,
        orgId,
        name: answer.name,
        years: body.years,
        autoRenew: body.auto_renew ?? false,
        nameservers: body.nameservers ?? [],
        registrantContactId: body.registrant_contact_id,
        adminContactId: body.admin_contact_id ?? null,
        techContactId: body.tech_contact_id ?? null,
      });
      await linkDomainContacts(tx, mode, domainId, {
        registrant: body.registrant_contact_id,
        admin: body.admin_contact_id ?? null,
        tech: body.tech_contact_id ?? null,
      });
      return insertOperation(tx, mode, {
        id: operationId,
        orgId,
        type: 'domain.register',
        domain: answer.name,
        domainId,
        workflowId,
        workflowInput: input,
        amount,
      });
    });
  } catch (err) {
    // Nothing was created: give the money back. A concurrent twin of this request lands here too.
    await release({ db: deps.db, operationId }).catch(() => undefined);
    const twin = await findOperationByWorkflowId(deps.db, mode, workflowId);
    if (twin) {
      await startRegistrationWorkflow(deps, twin);
      return twin;
    }
    if ((err as { code?: string }).code === '23505') throw new ConflictError('DOMAIN_NOT_AVAILABLE', `${answer.name} is not available`);
    throw err;
  }

  await startRegistrationWorkflow(deps, operation);
  return operation;
}

/**
 * Starts the operation's workflow, or finds it already running (USE_EXISTING) or finished
 * (REJECT_DUPLICATE): calling this twice never starts a second registration.
 */
async function startRegistrationWorkflow(deps: RegisterDomainProps['deps'], operation: Operation): Promise<void> {
  const input = operation.workflowInput as RegisterDomainInput;
  try {
    await deps.temporal.client.workflow.start('registerDomainWorkflow', {
      workflowId: operation.workflowId,
      taskQueue: deps.config.temporal.taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: OrgIdKey, value: input.orgId },
        { key: DomainKey, value: input.name },
        { key: LivemodeKey, value: input.livemode },
        { key: OperationTypeKey, value: operation.type },
      ],
      memo: {
        summary: `Register ${input.name} for ${input.years} year(s), ${input.livemode ? 'live' : 'test'} mode, org ${input.orgId}`,
        operationId: operation.id,
      },
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
