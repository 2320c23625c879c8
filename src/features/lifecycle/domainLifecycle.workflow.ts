import { condition, continueAsNew, patched, proxyActivities, proxyLocalActivities, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { AutoRenewStep, LifecycleActivities } from './activities.js';
import type { DnsActivities } from '../dns/index.js';
import { DOMAIN_LIFECYCLE_RETRIES, domainChangedSignal, domainMovedSignal, lifecycleProgressQuery, testClockAdvancedSignal, type DomainLifecycleInput, type DomainLifecycleResult, type DomainLifecycleState, type LifecycleStepResult } from './domainLifecycle.contract.js';
import { lifecycleNow, lifecycleSteps, type LifecycleStep } from './lifecycleSteps.workflow.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * Runs started from here on read and change the domain through local activities (done inside the
 * workflow task, no trip through the task queue); runs started before keep scheduled activities.
 */
export const LOCAL_LIFECYCLE_STORE_PATCH = 'local-lifecycle-store';

/**
 * Runs from here on delete a deleted test domain's zone too (test zones may be on a DNS server:
 * docs/api-guide.md, DNS); runs recorded before deleted live zones only.
 */
export const TEST_ZONE_DELETION_PATCH = 'test-zone-deletion';

/**
 * The lifecycle's activities, retried as its input says (the production values when it says
 * nothing). Built once, first thing in the run, so one run never mixes local and scheduled steps.
 */
function lifecycleActivities(input: DomainLifecycleInput) {
  const retries = { ...DOMAIN_LIFECYCLE_RETRIES, ...input.retries };
  const store = { startToCloseTimeout: '1 minute', retry: retryPolicy(retries.store) } as const;
  return {
    /** Our own database (and, for auto-renew, the start of a renewal workflow); each step is safe to repeat. */
    lifecycle: patched(LOCAL_LIFECYCLE_STORE_PATCH) ? proxyLocalActivities<LifecycleActivities & AutoRenewStep>(store) : proxyActivities<LifecycleActivities & AutoRenewStep>(store),
    /** A 5xx refusal of one address is logged by the activity and does not hold up the others. */
    mail: proxyActivities<LifecycleActivities>({ startToCloseTimeout: '1 minute', retry: retryPolicy(retries.mail, ['MAIL_REJECTED']) }),
    /** The zone goes once the domain is deleted. */
    dns: proxyActivities<Pick<DnsActivities, 'deleteDnsZone'>>({ startToCloseTimeout: '1 minute', retry: retryPolicy(retries.dnsZone) }),
  };
}

const WATCHED: ReadonlySet<DomainLifecycleState['status']> = new Set(['active', 'expired']);

/**
 * One domain's life (`domain-lifecycle:<domain id>`): auto-renewal or "expiring" notices before its
 * expiry, expiry, then deletion after the grace period. Each run watches one term and continues as
 * new when the term changes (a renewal). "Now" is workflow time plus the domain's test clock, read
 * from the database before every step; every step is an activity that checks the domain again in
 * its own transaction, so a renewal racing a step never leaves two outcomes.
 */
export async function domainLifecycleWorkflow(input: DomainLifecycleInput): Promise<DomainLifecycleResult> {
  const acts = lifecycleActivities(input);
  let wake = false;
  setHandler(testClockAdvancedSignal, () => {
    wake = true;
  });
  setHandler(domainChangedSignal, () => {
    wake = true;
  });
  // The organisation the domain was moved to, once told (domainMovedSignal).
  let movedTo: string | undefined;
  setHandler(domainMovedSignal, ({ orgId }) => {
    movedTo = orgId;
    wake = true;
  });
  let clockOffsetDays: number | null = null;
  let idle = false;
  setHandler(lifecycleProgressQuery, () => ({ clockOffsetDays, idle: idle && !wake }));
  const { lifecycle } = acts;
  const ref = { domainId: input.domainId, livemode: input.livemode };
  // A signal that comes while the domain is being read or changed must not be lost: `wake` is
  // cleared just before each look at the database, never after.
  const observe = async () => {
    wake = false;
    return lifecycle.readDomainLifecycle(ref);
  };
  let state = await observe();
  if (!state || !WATCHED.has(state.status) || !state.expiresAt) return { outcome: state?.status === 'deleted' ? 'deleted' : 'gone' };
  const cycle =
    input.cycle && input.cycle.expiresAt === state.expiresAt
      ? { ...input.cycle }
      : { expiresAt: state.expiresAt, handledUntil: input.watchFrom ?? lifecycleNow(Date.now(), state.clockOffsetDays) };

  for (;;) {
    if (!state || !WATCHED.has(state.status)) return { outcome: state?.status === 'deleted' ? 'deleted' : 'gone' };
    // A new term (renewed): a fresh run watches it, with a short history.
    if (state.expiresAt !== cycle.expiresAt) {
      return continueAsNew<typeof domainLifecycleWorkflow>({ ...input, cycle: undefined, watchFrom: lifecycleNow(Date.now(), state.clockOffsetDays) });
    }
    if (workflowInfo().continueAsNewSuggested) return continueAsNew<typeof domainLifecycleWorkflow>({ ...input, cycle });
    // Moved to another organisation: a fresh run carries its id (input, search attribute), same term and progress.
    if (movedTo !== undefined && movedTo !== input.orgId) {
      upsertSearchAttributes([{ key: { name: 'OrgId', type: 'KEYWORD' }, value: movedTo }]);
      return continueAsNew<typeof domainLifecycleWorkflow>({ ...input, orgId: movedTo, cycle });
    }
    const now = lifecycleNow(Date.now(), state.clockOffsetDays);
    const pending = lifecycleSteps(Date.parse(cycle.expiresAt), state.autoRenew, input.durations).filter((step) => step.at > cycle.handledUntil);
    const due = !state.renewalOpen && pending[0] && pending[0].at <= now ? pending[0] : undefined;
    if (due) {
      wake = false;
      const done = await runStep(acts, input, cycle.expiresAt, due);
      if (done.outcome !== 'busy') {
        cycle.handledUntil = due.at;
        // The step read the domain as it left it: go on from there.
        state = done.state;
        continue;
      }
    }
    // A running renewal signals its end (domainChanged); its timer, like a busy step's, is only a safety net.
    const waitMs = state.renewalOpen || due ? input.durations.renewalRecheckMs : pending[0] ? pending[0].at - now : undefined;
    clockOffsetDays = state.clockOffsetDays;
    idle = !state.renewalOpen && !due;
    await condition(() => wake, waitMs);
    idle = false;
    state = await observe();
  }
}

/** One step, then its notice mailed (the notice row makes both happen once, whatever is replayed or retried). */
async function runStep(
  { lifecycle, mail, dns }: ReturnType<typeof lifecycleActivities>,
  input: DomainLifecycleInput,
  cycleExpiresAt: string,
  step: LifecycleStep,
): Promise<LifecycleStepResult> {
  const ref = { domainId: input.domainId, livemode: input.livemode, cycleExpiresAt };
  const at = new Date(step.at).toISOString();
  let outcome: LifecycleStepResult;
  switch (step.kind) {
    case 'auto_renew':
      outcome = await lifecycle.autoRenewDomain({ ...ref, attemptAt: at });
      break;
    case 'expiring':
      outcome = await lifecycle.recordExpiringNotice({ ...ref, at, daysLeft: step.daysLeft });
      break;
    case 'expire':
      outcome = await lifecycle.expireDomain({ ...ref, graceMs: input.durations.graceMs });
      break;
    case 'delete':
      outcome = await lifecycle.deleteExpiredDomain({ ...ref, graceMs: input.durations.graceMs });
      if (outcome.outcome === 'done' && (input.livemode || patched(TEST_ZONE_DELETION_PATCH))) await dns.deleteDnsZone({ livemode: input.livemode, domainName: input.name });
      break;
  }
  if (outcome.noticeId) await mail.mailDomainNotice({ noticeId: outcome.noticeId, livemode: input.livemode });
  return outcome;
}
