import type { AppDeps } from '../../deps.js';
import { findContact } from '../../db/repositories/contacts.js';
import { findDomainOfOrg, insertDomain, linkDomainContacts } from '../../db/repositories/domains.js';
import type { Operation } from '../../db/repositories/operations.js';
import { ConflictError, ValidationError, type FieldError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { IdempotencyIdentity } from '../../db/repositories/idempotencyKeys.js';
import { operationRequestHash, operationWorkflowId, requester } from './operationWorkflows.js';
import { beginOperation, existingOperation } from './beginOperation.js';
import { requireRegistrantState } from './registrantChecks.js';

/** How often a pending registration is checked in test mode; live mode takes `config.registrarTiming`. */
export const REGISTRATION_POLL_MS = { test: 1_000 };

export interface RegisterDomainProps {
  deps: Pick<AppDeps, 'db' | 'availability' | 'temporal' | 'config' | 'payloadKeys'>;
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
  if (mode.livemode) await requireRegistrantState(props.deps.db, { orgId: props.orgId, id: props.body.registrant_contact_id });
}

/**
 * Registers a domain: what can be decided now is answered now (422, 409, then 402 as the price is
 * reserved), then a workflow does the rest (see beginOperation for how retries stay single).
 */
export async function registerDomain(props: RegisterDomainProps): Promise<Operation> {
  const { deps, principal, orgId, body } = props;
  const mode = { livemode: principal.livemode };
  const workflowId = operationWorkflowId('register', requester(props), () => randomBase62(16));
  const requestHash = operationRequestHash({
    type: 'domain.register',
    name: body.name.toLowerCase(),
    years: body.years,
    registrant: body.registrant_contact_id,
    admin: body.admin_contact_id ?? null,
    tech: body.tech_contact_id ?? null,
    nameservers: body.nameservers ?? [],
    autoRenew: body.auto_renew ?? false,
  });
  const existing = await existingOperation(deps, mode.livemode, workflowId, requestHash);
  if (existing) return existing;

  const answer = await deps.availability.check({ input: body.name, livemode: mode.livemode, loc: ['body', 'name'] });
  await checkContacts(props);
  if (await findDomainOfOrg(deps.db, mode, orgId, answer.name)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${answer.name} is already registered or being registered by this organisation`);
  }
  if (!answer.available || !answer.price) throw new ConflictError('DOMAIN_NOT_AVAILABLE', `${answer.name} is not available`);
  const price = answer.price;

  return beginOperation<'domain.register'>({
    deps,
    livemode: mode.livemode,
    orgId,
    type: 'domain.register',
    workflowId,
    requestHash,
    domainName: answer.name,
    amount: price.amount * body.years,
    description: `Registration of ${answer.name} for ${body.years} year${body.years > 1 ? 's' : ''}`,
    writeDomain: async (tx, { domainId }) => {
      await insertDomain(tx, mode, {
        id: domainId,
        status: 'registering',
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
      return domainId;
    },
    workflowInput: ({ operationId, domainId }) => ({
      operationId,
      orgId,
      livemode: mode.livemode,
      domainId,
      name: answer.name,
      years: body.years,
      registrantContactId: body.registrant_contact_id,
      nameservers: body.nameservers ?? [],
      autoRenew: body.auto_renew ?? false,
      premiumPriceCents: answer.premium ? price.amount : null,
      pollIntervalMs: mode.livemode ? deps.config.registrarTiming.pollIntervalMs : REGISTRATION_POLL_MS.test,
      settleMs: mode.livemode ? deps.config.registrarTiming.settleMs : REGISTRATION_POLL_MS.test,
    }),
  });
}
