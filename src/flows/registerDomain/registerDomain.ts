import type { PlatformDeps } from '../../platformDeps.js';
import { type AvailabilityService, findRegistrationFacts, type RegistrationFacts, type Operation, operationRequestHash, operationWorkflowId, requester, answerExisting, beginOperation, quoteOperation, type BeginOperationProps, type OperationQuote, requireRegistrantState } from '../../features/domains/index.js';
import { ConflictError, ValidationError, type FieldError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { IdempotencyIdentity } from '../../http/idempotencyKeys.js';
import { requireDomainAllowed } from '../../auth/authorize.js';
import { parseDomainName } from '../../domainName.js';
import { modeOf } from '../../db/modeScope.js';

/** How often a pending registration is checked in test mode; live mode takes `config.registrarTiming`. */
export const REGISTRATION_POLL_MS = { test: 1_000 };

export interface RegisterDomainProps {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'payloadKeys'> & { availability: AvailabilityService };
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
    whois_privacy?: boolean | undefined;
    max_price?: number | undefined;
  };
}

/** 422 for each contact the organisation does not have (in this mode), all at once. */
async function checkContacts(props: RegisterDomainProps, facts: RegistrationFacts): Promise<void> {
  const mode = modeOf(props.principal.livemode);
  const errors: FieldError[] = [];
  for (const field of ['registrant_contact_id', 'admin_contact_id', 'tech_contact_id'] as const) {
    const id = props.body[field];
    if (id && !facts.foundContactIds.includes(id)) {
      errors.push({ loc: ['body', field], msg: 'No such contact in this organisation', type: 'contact_not_found' });
    }
  }
  if (errors.length) throw new ValidationError(errors);
  if (mode.livemode) await requireRegistrantState(props.deps.db, { orgId: props.orgId, id: props.body.registrant_contact_id });
}

/** The registration's facts (registration.repository.ts) for this request and workflow id. */
function readFacts(props: RegisterDomainProps, workflowId: string): Promise<RegistrationFacts> {
  const { body } = props;
  const parsed = parseDomainName(body.name);
  const contactIds = [body.registrant_contact_id, body.admin_contact_id, body.tech_contact_id].filter((id): id is string => id !== undefined);
  // An unparsable name holds nothing; the availability check answers its 422.
  const name = parsed.ok ? parsed.value.name : '';
  return findRegistrationFacts(props.deps.db, modeOf(props.principal.livemode), { workflowId, orgId: props.orgId, contactIds, name });
}

/** The workflow id and request hash of a registration; max_price is a guard, not part of what is asked. */
function registrationIdentity(props: RegisterDomainProps): { workflowId: string; requestHash: string } {
  const { body } = props;
  return {
    workflowId: operationWorkflowId('register', requester(props), () => randomBase62(16)),
    requestHash: operationRequestHash({
      type: 'domain.register',
      name: body.name.toLowerCase(),
      years: body.years,
      registrant: body.registrant_contact_id,
      admin: body.admin_contact_id ?? null,
      tech: body.tech_contact_id ?? null,
      nameservers: body.nameservers ?? [],
      autoRenew: body.auto_renew ?? false,
      // Only when asked, so requests without it hash as they did before it existed.
      ...(body.whois_privacy ? { whoisPrivacy: true } : {}),
    }),
  };
}

/**
 * Registers a domain: what can be decided now is answered now (422, 409, then 402 as the price is
 * reserved), then a workflow does the rest (see beginOperation for how retries stay single).
 */
export async function registerDomain(props: RegisterDomainProps): Promise<Operation> {
  const identity = registrationIdentity(props);
  const facts = await readFacts(props, identity.workflowId);
  if (facts.operation) return answerExisting(props.deps, facts.operation, identity.requestHash);
  return beginOperation(await planRegistration(props, identity, facts));
}

/** `Dry-Run: true`: every check of registerDomain, nothing kept (quoteOperation). */
export async function quoteRegistration(props: RegisterDomainProps): Promise<OperationQuote> {
  const unkeyed = { ...props, idempotency: undefined };
  const identity = registrationIdentity(unkeyed);
  return quoteOperation(await planRegistration(unkeyed, identity, await readFacts(unkeyed, identity.workflowId)));
}

async function planRegistration(
  props: RegisterDomainProps,
  identity: { workflowId: string; requestHash: string },
  facts: RegistrationFacts,
): Promise<BeginOperationProps<'domain.register'>> {
  const { deps, principal, orgId, body } = props;
  const mode = modeOf(principal.livemode);
  // A restricted key is refused before the registrar is asked anything about the name.
  const parsed = parseDomainName(body.name);
  if (parsed.ok) requireDomainAllowed(principal, parsed.value.name);
  const answer = await deps.availability.check({ input: body.name, livemode: mode.livemode, loc: ['body', 'name'] });
  await checkContacts(props, facts);
  if (facts.nameHeld) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${answer.name} is already registered or being registered by this organisation`);
  }
  if (!answer.available || !answer.price) throw new ConflictError('DOMAIN_NOT_AVAILABLE', `${answer.name} is not available`);
  const price = answer.price;
  if (mode.livemode && answer.premium && body.max_price === undefined) {
    // A premium price is set by the registry and can be many times the list price: never charged unseen.
    throw new ValidationError([
      {
        loc: ['body', 'max_price'],
        msg: `${answer.name} is a premium name at ${price.amount * body.years} (USD minor units); send max_price to agree to it`,
        type: 'max_price_required',
      },
    ]);
  }

  return {
    deps,
    livemode: mode.livemode,
    orgId,
    type: 'domain.register',
    ...identity,
    domainName: answer.name,
    amount: price.amount * body.years,
    maxPrice: body.max_price,
    apiKeyId: principal.keyId,
    description: `Registration of ${answer.name} for ${body.years} year${body.years > 1 ? 's' : ''}`,
    newDomain: {
      status: 'registering',
      orgId,
      name: answer.name,
      years: body.years,
      autoRenew: body.auto_renew ?? false,
      nameservers: body.nameservers ?? [],
      registrantContactId: body.registrant_contact_id,
      adminContactId: body.admin_contact_id ?? null,
      techContactId: body.tech_contact_id ?? null,
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
      ...(body.whois_privacy ? { whoisPrivacy: true } : {}),
      pollIntervalMs: mode.livemode ? deps.config.registrarTiming.pollIntervalMs : REGISTRATION_POLL_MS.test,
      settleMs: mode.livemode ? deps.config.registrarTiming.settleMs : REGISTRATION_POLL_MS.test,
    }),
  };
}
