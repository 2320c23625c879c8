import type { PlatformDeps } from '../../platformDeps.js';
import { findContact } from '../../features/contacts/index.js';
import { findDomainOfOrg, type Operation, beginOperation, existingOperation, quoteOperation, type BeginOperationProps, type OperationQuote, operationRequestHash, operationWorkflowId, requester, requireRegistrantState } from '../../features/domains/index.js';
import { ConflictError, ValidationError } from '../../errors.js';
import { randomBase62 } from '../../ids.js';
import type { Principal } from '../../auth/principal.js';
import type { IdempotencyIdentity } from '../../http/idempotencyKeys.js';
import { checkRegistrableName, nameRefusal } from '../../registrableName.js';
import { requireDomainAllowed } from '../../auth/authorize.js';
import { modeOf } from '../../db/modeScope.js';

/** Test-mode transfers finish in seconds; live ones wait for the registry (`config.registrarTiming`). */
const TEST_TRANSFER_TIMING = { pollIntervalMs: 1_000, settleMs: 1_000, timeoutMs: 10 * 60_000 };

export interface TransferDomainProps {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'registrars' | 'payloadKeys'>;
  principal: Principal;
  orgId: string;
  idempotency: IdempotencyIdentity | undefined;
  body: { name: string; auth_code: string; registrant_contact_id: string; whois_privacy?: boolean | undefined; max_price?: number | undefined };
}

/** The workflow id and request hash of a transfer; max_price is a guard, not part of what is asked. */
function transferIdentity(props: TransferDomainProps): { workflowId: string; requestHash: string } {
  return {
    workflowId: operationWorkflowId('transfer', requester(props), () => randomBase62(16)),
    // The auth code is a secret and stays out of the stored hash: a retry with a corrected code under
    // the same key is answered with the earlier operation (and charged nothing more), never refused.
    requestHash: operationRequestHash({
      type: 'domain.transfer',
      name: props.body.name.toLowerCase(),
      registrant: props.body.registrant_contact_id,
      // Only when asked, so requests without it hash as they did before it existed.
      ...(props.body.whois_privacy ? { whoisPrivacy: true } : {}),
    }),
  };
}

/** Transfers a domain in: the transfer price is reserved now, the workflow waits for the registry. */
export async function transferDomain(props: TransferDomainProps): Promise<Operation> {
  const identity = transferIdentity(props);
  const existing = await existingOperation(props.deps, props.principal.livemode, identity.workflowId, identity.requestHash);
  if (existing) return existing;
  return beginOperation(await planTransfer(props, identity));
}

/** `Dry-Run: true`: every check of transferDomain, nothing kept (quoteOperation). */
export async function quoteTransfer(props: TransferDomainProps): Promise<OperationQuote> {
  return quoteOperation(await planTransfer(props, transferIdentity({ ...props, idempotency: undefined })));
}

async function planTransfer(
  props: TransferDomainProps,
  identity: { workflowId: string; requestHash: string },
): Promise<BeginOperationProps<'domain.transfer'>> {
  const { deps, principal, orgId, body } = props;
  const mode = modeOf(principal.livemode);
  const table = await deps.registrars.prices();
  const checked = checkRegistrableName(body.name, table, deps.config.acmeDns?.zone);
  if (!checked.ok) throw nameRefusal(checked, ['body', 'name']);
  const name = checked.name.name;
  const prices = table.tlds[checked.tld]!;
  requireDomainAllowed(principal, name);
  if (!(await findContact(deps.db, mode, { orgId, id: body.registrant_contact_id }))) {
    throw new ValidationError([{ loc: ['body', 'registrant_contact_id'], msg: 'No such contact in this organisation', type: 'contact_not_found' }]);
  }
  if (mode.livemode) await requireRegistrantState(deps.db, { orgId, id: body.registrant_contact_id });
  if (await findDomainOfOrg(deps.db, mode, orgId, name)) {
    throw new ConflictError('DOMAIN_STATE_CONFLICT', `${name} is already in this organisation`);
  }
  const live = deps.config.registrarTiming;
  const timing = mode.livemode
    ? { pollIntervalMs: live.transferPollIntervalMs, settleMs: live.settleMs, timeoutMs: live.transferTimeoutMs }
    : TEST_TRANSFER_TIMING;
  // Premium names cost what the registrar quotes, and the quote is sent back as confirmation.
  const quote = await (await deps.registrars.forMode(mode.livemode)).quote(name);
  const amount = quote.premium ? quote.transfer.amount : prices.transfer;
  return {
    deps,
    livemode: mode.livemode,
    orgId,
    type: 'domain.transfer',
    ...identity,
    domainName: name,
    amount,
    maxPrice: body.max_price,
    apiKeyId: principal.keyId,
    description: `Transfer of ${name}`,
    newDomain: {
      status: 'transfer_pending',
      orgId,
      name,
      years: 1,
      autoRenew: false,
      nameservers: [],
      registrantContactId: body.registrant_contact_id,
      adminContactId: null,
      techContactId: null,
    },
    workflowInput: ({ operationId, domainId }) => ({
      operationId,
      orgId,
      livemode: mode.livemode,
      domainId,
      name,
      authCode: body.auth_code,
      registrantContactId: body.registrant_contact_id,
      premiumPriceCents: quote.premium ? amount : null,
      ...timing,
      ...(body.whois_privacy ? { whoisPrivacy: true } : {}),
    }),
  };
}
