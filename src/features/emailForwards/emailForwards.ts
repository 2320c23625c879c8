import type { Db } from '../../db/pool.js';
import { withTransaction } from '../../db/pool.js';
import type { Principal } from '../../auth/principal.js';
import { requireDomainAllowed } from '../../auth/authorize.js';
import { findOrganization } from '../../auth/organizations.js';
import type { DomainName } from '../../domainName.js';
import { ConflictError, NotFoundError } from '../../errors.js';
import { newId } from '../../ids.js';
import { modeOf } from '../../db/modeScope.js';
import { activeDomainNamed, domainNamed } from '../domains/index.js';
import { applyRecordChanges, type DnsProviders, type DnsRecord, type RecordOperation } from '../dns/index.js';
import { checkForward } from './addresses.js';
import { EmailForwardInvalidError, EmailForwardLimitError } from './errors.js';
import { emailForwardLimit } from './mailLimits.js';
import { mailRecordsToAdd, mailRecordsToRemove } from './mailRecords.js';
import { countEmailForwards, deleteEmailForward, findEmailForward, insertEmailForward, lockEmailForwardsOf, type EmailForward } from './emailForwards.repository.js';

/**
 * E-mail forwards of a domain (docs/api-guide.md, E-mail forwarding). A create and a delete of one
 * domain's forwards run one after the other (a lock held to their commit), so "the first" and "the
 * last" are decided once: the first forward adds the mail records through the record service (one
 * batch: the DNS provider first, events, audit), the last one removed deletes them the same way.
 * Postfix sees a forward the moment its row commits (it reads the `email_forward_aliases` view).
 */
export interface EmailForwardProps {
  db: Db;
  dnsProviders: DnsProviders;
  principal: Principal;
  orgId: string;
  domain: DomainName;
  requestId: string;
  /** MAIL_FORWARDING_HOSTNAME: the MX target, and the SRS domain no forward may send to. */
  mxHost: string;
}

export interface CreatedForward {
  forward: EmailForward;
  /** The mail records this forward added (only the domain's first adds any). */
  records: DnsRecord[];
}

function changeRecords(props: EmailForwardProps, operations: RecordOperation[]) {
  if (operations.length === 0) return Promise.resolve([]);
  return applyRecordChanges({
    db: props.db,
    dnsProviders: props.dnsProviders,
    principal: props.principal,
    orgId: props.orgId,
    domain: props.domain,
    operations,
    shape: 'batch',
    requestId: props.requestId,
  });
}

export async function createEmailForward(props: EmailForwardProps & { localPart: string; to: string[] }): Promise<CreatedForward> {
  const checked = checkForward({ localPart: props.localPart, to: props.to, domain: props.domain.name, srsDomain: props.mxHost });
  if (!checked.ok) throw new EmailForwardInvalidError(checked.errors);
  const mode = modeOf(props.principal.livemode);
  requireDomainAllowed(props.principal, props.domain.name);
  const domain = await activeDomainNamed(props.db, mode, props.orgId, props.domain, 'forward e-mail');
  return withTransaction(props.db, async (tx) => {
    await lockEmailForwardsOf(tx, domain.id);
    const count = await countEmailForwards(tx, mode, domain.id);
    const plan = (await findOrganization(tx, props.orgId))?.plan ?? 'free';
    if (count >= emailForwardLimit(plan)) throw new EmailForwardLimitError({ limit: emailForwardLimit(plan), plan });
    const forward = await insertEmailForward(tx, mode, { id: newId('emf'), domainId: domain.id, ...checked.value });
    if (!forward) throw new ConflictError('DUPLICATE', `${props.domain.name} forwards ${checked.value.localPart} already; delete that forward first`);
    const results = count === 0 ? await changeRecords(props, await mailRecordsToAdd(tx, mode, { domainId: domain.id, mxHost: props.mxHost })) : [];
    return { forward, records: results.flatMap((r) => (r.op === 'create' ? [r.record] : [])) };
  });
}

export async function removeEmailForward(props: EmailForwardProps & { id: string }): Promise<void> {
  const mode = modeOf(props.principal.livemode);
  requireDomainAllowed(props.principal, props.domain.name);
  const domain = await domainNamed(props.db, mode, props.orgId, props.domain);
  await withTransaction(props.db, async (tx) => {
    await lockEmailForwardsOf(tx, domain.id);
    if (!(await findEmailForward(tx, mode, { domainId: domain.id, id: props.id }))) throw new NotFoundError('E-mail forward not found');
    await deleteEmailForward(tx, mode, { domainId: domain.id, id: props.id });
    if ((await countEmailForwards(tx, mode, domain.id)) === 0 && domain.status === 'active') {
      await changeRecords(props, await mailRecordsToRemove(tx, mode, { domainId: domain.id, mxHost: props.mxHost }));
    }
  });
}
