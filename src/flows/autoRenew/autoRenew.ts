import type { PlatformDeps } from '../../platformDeps.js';
import { withTransaction } from '../../db/pool.js';
import { findDomainById, type Domain, findOpenRenewal, RENEWABLE } from '../../features/domains/index.js';
import { ApiError, ConflictError } from '../../errors.js';
import { type LifecycleStepOutcome, recordNotice, lifecycleNowOf } from '../../features/lifecycle/index.js';
import { beginRenewal } from '../renewDomain/renewDomain.js';
import { modeOf } from '../../db/modeScope.js';

export interface AutoRenewProps {
  deps: Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'registrars' | 'payloadKeys'>;
  domainId: string;
  livemode: boolean;
  /** The term due for renewal. */
  cycleExpiresAt: string;
  /** When this attempt fell due (lifecycle time): names its failure notice, one per attempt. */
  attemptAt: string;
}

/**
 * The workflow id of the auto-renewal of one term. One per term, so the term is renewed (and
 * charged) at most once however often it is tried; a refusal for short funds writes nothing, so
 * the next day's attempt can still start it.
 */
export function autoRenewWorkflowId(domain: Pick<Domain, 'orgId' | 'livemode' | 'id'>, termExpiresAt: string): string {
  return `renew:${domain.orgId}:${domain.livemode ? 'live' : 'test'}:auto-renew:${domain.id}:${termExpiresAt}`;
}

/**
 * Renews the domain for one year from the organisation's balance, through the same path as a
 * renewal by hand (beginRenewal: reservation, operation `domain.renew`, the renew workflow). Short
 * funds, or a renewal of this term the registrar refused, record an `auto_renew_failed` notice.
 */
export async function autoRenewDomain(props: AutoRenewProps): Promise<LifecycleStepOutcome> {
  const { deps } = props;
  const mode = modeOf(props.livemode);
  const domain = await findDomainById(deps.db, mode, props.domainId);
  if (!domain || !RENEWABLE.includes(domain.status)) return { outcome: 'skipped', noticeId: null, detail: `the domain is ${domain?.status ?? 'gone'}` };
  if (domain.expiresAt?.toISOString() !== props.cycleExpiresAt) return { outcome: 'skipped', noticeId: null, detail: 'the domain was renewed meanwhile' };
  if (!domain.autoRenew) return { outcome: 'skipped', noticeId: null, detail: 'auto-renew is off' };
  let reason: string;
  try {
    const operation = await beginRenewal({
      deps,
      orgId: domain.orgId,
      livemode: domain.livemode,
      domainName: domain.name,
      years: 1,
      workflowId: autoRenewWorkflowId(domain, props.cycleExpiresAt),
      expectedTerm: { expiresAt: props.cycleExpiresAt },
    });
    if (operation.status !== 'failed' && operation.status !== 'cancelled') {
      return { outcome: 'done', noticeId: null, detail: `renewal ${operation.id} ${operation.status}` };
    }
    reason = `the registrar refused the renewal (${operation.error?.detail ?? operation.error?.code ?? 'no detail'})`;
  } catch (err) {
    if (err instanceof ConflictError) {
      const running = await findOpenRenewal(deps.db, mode, domain.id);
      return { outcome: running ? 'busy' : 'skipped', noticeId: null, detail: err.message };
    }
    if (!(err instanceof ApiError) || (err.code !== 'INSUFFICIENT_FUNDS' && err.code !== 'SPEND_LIMIT_REACHED')) throw err;
    reason = err.message;
  }
  const noticeId = await withTransaction(deps.db, (tx) =>
    recordNotice({
      tx,
      domain,
      kind: 'auto_renew_failed',
      termExpiresAt: props.cycleExpiresAt,
      qualifier: props.attemptAt,
      at: lifecycleNowOf(domain),
      facts: { reason },
    }),
  );
  return { outcome: 'done', noticeId, detail: reason };
}
