import type { AppDeps } from '../../deps.js';
import { findDomainOfOrg, type Domain } from '../../db/repositories/domains.js';
import { findOperation, type Operation } from '../../db/repositories/operations.js';
import { ConflictError, ValidationError } from '../../errors.js';
import { MAX_RENEWAL_PERIOD } from '../../registrar/dnsimple.js';
import { randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domains/domainName.js';
import type { IdempotencyIdentity } from '../../db/repositories/idempotencyKeys.js';
import { pricesFor } from '../../registrar/port.js';
import { beginOperation, existingOperation, quoteOperation, type BeginOperationProps, type OperationQuote } from './beginOperation.js';
import { activeDomainNamed } from './lookup.js';
import { operationRequestHash, operationWorkflowId, requester } from './operationWorkflows.js';

/** How long the api waits for a renewal to finish before answering 202 instead of 200. */
export const RENEW_SYNC_WAIT_MS = 10_000;

export interface RenewDomainProps {
  deps: Pick<AppDeps, 'db' | 'temporal' | 'config' | 'registrars' | 'payloadKeys'>;
  principal: Principal;
  orgId: string;
  domainName: DomainName;
  years: number;
  /** The most the caller agreed to pay (`max_price`); a higher price is 409 PRICE_EXCEEDS_MAX. */
  maxPrice?: number | undefined;
  idempotency: IdempotencyIdentity | undefined;
}

export type RenewOutcome = { done: true; operation: Operation; domain: Domain } | { done: false; operation: Operation };

/**
 * Renews an active domain. The answer waits up to 10 seconds for the workflow: done by then, the
 * caller gets the new expiry (200); otherwise the operation to poll (202).
 */
export async function renewDomain(props: RenewDomainProps): Promise<RenewOutcome> {
  const { deps, principal, orgId } = props;
  const mode = { livemode: principal.livemode };
  const identity = renewalIdentity(props);
  const { workflowId } = identity;
  const started =
    (await existingOperation(deps, mode.livemode, workflowId, identity.requestHash)) ?? (await beginOperation(await planRenewal(props, identity)));

  const finished = await Promise.race([
    deps.temporal.client.workflow.getHandle(workflowId).result().then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), RENEW_SYNC_WAIT_MS).unref()),
  ]);
  const operation = (finished ? await findOperation(deps.db, mode, orgId, started.id) : undefined) ?? started;
  if (operation.status === 'succeeded') {
    const domain = await findDomainOfOrg(deps.db, mode, orgId, operation.domain);
    if (domain) return { done: true, operation, domain };
  }
  return { done: false, operation };
}

/** `Dry-Run: true`: every check of renewDomain, nothing kept (quoteOperation). */
export async function quoteRenewal(props: RenewDomainProps): Promise<OperationQuote> {
  return quoteOperation(await planRenewal(props, renewalIdentity({ ...props, idempotency: undefined })));
}

/** The workflow id and request hash of a renewal; max_price is a guard, not part of what is asked. */
function renewalIdentity(props: RenewDomainProps): { workflowId: string; requestHash: string } {
  return {
    workflowId: operationWorkflowId('renew', requester(props), () => randomBase62(16)),
    requestHash: operationRequestHash({ type: 'domain.renew', name: props.domainName.name, years: props.years }),
  };
}

async function planRenewal(props: RenewDomainProps, identity: { workflowId: string; requestHash: string }): Promise<BeginOperationProps<'domain.renew'>> {
  const { deps, principal, orgId } = props;
  const mode = { livemode: principal.livemode };
  const domain = await activeDomainNamed(deps.db, mode, orgId, props.domainName, 'it can be renewed');
  const prices = pricesFor(await deps.registrars.prices(), domain.name);
  if (!prices) throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} has a TLD no longer sold`);
  if (mode.livemode && props.years > MAX_RENEWAL_PERIOD) {
    // DNSimple renews for at most 9 years at a time; refused before any money moves rather than split.
    throw new ValidationError([
      { loc: ['body', 'years'], msg: `Live renewals are for 1 to ${MAX_RENEWAL_PERIOD} years at a time`, type: 'less_than_equal' },
    ]);
  }
  // Premium names renew at the registrar's price, confirmed back to it.
  const quote = await (await deps.registrars.forMode(mode.livemode)).quote(domain.name);
  const perYear = quote.premium ? quote.renew.amount : prices.renew;
  return {
    deps,
    livemode: mode.livemode,
    orgId,
    type: 'domain.renew',
    ...identity,
    domainName: domain.name,
    amount: perYear * props.years,
    maxPrice: props.maxPrice,
    apiKeyId: principal.keyId,
    description: `Renewal of ${domain.name} for ${props.years} year${props.years > 1 ? 's' : ''}`,
    writeDomain: () => Promise.resolve(domain.id),
    workflowInput: ({ operationId }) => ({
      operationId,
      orgId,
      livemode: mode.livemode,
      domainId: domain.id,
      name: domain.name,
      years: props.years,
      currentExpiresAt: domain.expiresAt?.toISOString() ?? null,
      premiumPriceCents: quote.premium ? perYear : null,
      pollIntervalMs: mode.livemode ? deps.config.registrarTiming.pollIntervalMs : 1_000,
      settleMs: mode.livemode ? deps.config.registrarTiming.settleMs : 1_000,
    }),
  };
}
