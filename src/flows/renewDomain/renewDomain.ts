import type { PlatformDeps } from '../../platformDeps.js';
import { findDomainOfOrg, findLatestDomainOfOrg, lockDomain, type Domain, findOpenRenewal, findOperation, type Operation, beginOperation, existingOperation, quoteOperation, type BeginOperationProps, type OperationQuote, domainIn, RENEWABLE, operationRequestHash, operationWorkflowId, requester } from '../../features/domains/index.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { MAX_RENEWAL_PERIOD } from '../../registrar/dnsimple.js';
import { randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { DomainName } from '../../domainName.js';
import type { IdempotencyIdentity } from '../../http/idempotencyKeys.js';
import { pricesFor } from '../../registrar/port.js';
import { modeOf } from '../../db/modeScope.js';

/** How long the api waits for a renewal to finish before answering 202 instead of 200. */
export const RENEW_SYNC_WAIT_MS = 10_000;

type RenewalDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'registrars' | 'payloadKeys'>;

export interface RenewDomainProps {
  deps: RenewalDeps;
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
 * Renews an active domain, or an expired one in its grace period. The answer waits up to 10 seconds
 * for the workflow: done by then, the caller gets the new expiry (200); otherwise the operation to
 * poll (202).
 */
export async function renewDomain(props: RenewDomainProps): Promise<RenewOutcome> {
  const { deps, principal, orgId } = props;
  const mode = modeOf(principal.livemode);
  const workflowId = operationWorkflowId('renew', requester(props), () => randomBase62(16));
  const started = await beginRenewal(renewalByHand(props, workflowId));

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
  const request = renewalByHand(props, operationWorkflowId('renew', requester({ ...props, idempotency: undefined }), () => randomBase62(16)));
  return quoteOperation(await planRenewal(request, renewalRequestHash(request)));
}

function renewalByHand(props: RenewDomainProps, workflowId: string): BeginRenewalProps {
  return {
    deps: props.deps,
    orgId: props.orgId,
    livemode: props.principal.livemode,
    domainName: props.domainName.name,
    years: props.years,
    workflowId,
    maxPrice: props.maxPrice,
    apiKeyId: props.principal.keyId,
  };
}

export interface BeginRenewalProps {
  deps: RenewalDeps;
  orgId: string;
  livemode: boolean;
  /** The ASCII (punycode) name, as stored. */
  domainName: string;
  years: number;
  /** Derived from the request (a member's Idempotency-Key, or the auto-renewed term): a retry finds its operation. */
  workflowId: string;
  /** Auto-renewal: only the term it was due for, and only while auto-renew is on. */
  expectedTerm?: { expiresAt: string };
  /** The most the caller agreed to pay (`max_price`); a guard, not part of what is asked. */
  maxPrice?: number | undefined;
  /** The key that asked, for its monthly spending limit. */
  apiKeyId?: string | undefined;
}

function renewalRequestHash(props: Pick<BeginRenewalProps, 'domainName' | 'years' | 'expectedTerm'>): string {
  return operationRequestHash({
    type: 'domain.renew',
    name: props.domainName,
    years: props.years,
    ...(props.expectedTerm ? { auto_renew: props.expectedTerm.expiresAt } : {}),
  });
}

/**
 * The one path of every renewal, by hand or automatic: the price reserved and the operation written
 * with the domain locked (active or in its grace period, no other renewal running: 409
 * DOMAIN_STATE_CONFLICT otherwise), then the renew workflow started. 402 when funds are short or a
 * spending limit is reached.
 */
export async function beginRenewal(props: BeginRenewalProps): Promise<Operation> {
  const requestHash = renewalRequestHash(props);
  const existing = await existingOperation(props.deps, props.livemode, props.workflowId, requestHash);
  if (existing) return existing;
  return beginOperation(await planRenewal(props, requestHash));
}

/** Every check of a renewal, and what beginOperation writes for it (or quoteOperation rolls back). */
async function planRenewal(props: BeginRenewalProps, requestHash: string): Promise<BeginOperationProps<'domain.renew'>> {
  const { deps, orgId, livemode } = props;
  const mode = modeOf(livemode);
  const found = await findLatestDomainOfOrg(deps.db, mode, orgId, props.domainName);
  if (!found) throw new NotFoundError('Domain not found');
  const domain = domainIn(found, RENEWABLE, 'it can be renewed');
  const prices = pricesFor(await deps.registrars.prices(), domain.name);
  if (!prices) throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} has a TLD no longer sold`);
  if (livemode && props.years > MAX_RENEWAL_PERIOD) {
    // DNSimple renews for at most 9 years at a time; refused before any money moves rather than split.
    throw new ValidationError([{ loc: ['body', 'years'], msg: `Live renewals are for 1 to ${MAX_RENEWAL_PERIOD} years at a time`, type: 'less_than_equal' }]);
  }
  // Premium names renew at the registrar's price, confirmed back to it.
  const quote = await (await deps.registrars.forMode(livemode)).quote(domain.name);
  const perYear = quote.premium ? quote.renew.amount : prices.renew;
  return {
    deps,
    livemode,
    orgId,
    type: 'domain.renew',
    workflowId: props.workflowId,
    requestHash,
    domainName: domain.name,
    amount: perYear * props.years,
    maxPrice: props.maxPrice,
    apiKeyId: props.apiKeyId,
    description: `${props.expectedTerm ? 'Auto-renewal' : 'Renewal'} of ${domain.name} for ${props.years} year${props.years > 1 ? 's' : ''}`,
    // Under the domain's lock, which expiry and deletion take too: what was checked above still holds.
    writeDomain: async (tx) => {
      const locked = await lockDomain(tx, mode, domain.id);
      if (!locked) throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} is gone`);
      // A move accepted meanwhile (src/features/domainMoves/) took the domain, and its term, to another organisation.
      if (locked.orgId !== orgId) throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} was moved to another organisation meanwhile`);
      domainIn(locked, RENEWABLE, 'it can be renewed');
      if (await findOpenRenewal(tx, mode, domain.id)) throw new ConflictError('DOMAIN_STATE_CONFLICT', `A renewal of ${domain.name} is already running`);
      if (props.expectedTerm && (locked.expiresAt?.toISOString() !== props.expectedTerm.expiresAt || !locked.autoRenew)) {
        throw new ConflictError('DOMAIN_STATE_CONFLICT', `${domain.name} was renewed, or its auto-renew turned off, meanwhile`);
      }
      return domain.id;
    },
    workflowInput: ({ operationId }) => ({
      operationId,
      orgId,
      livemode,
      domainId: domain.id,
      name: domain.name,
      years: props.years,
      currentExpiresAt: domain.expiresAt?.toISOString() ?? null,
      premiumPriceCents: quote.premium ? perYear : null,
      pollIntervalMs: livemode ? deps.config.registrarTiming.pollIntervalMs : 1_000,
      settleMs: livemode ? deps.config.registrarTiming.settleMs : 1_000,
    }),
  };
}
