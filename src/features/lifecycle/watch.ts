import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { Domain, DomainWatcher } from '../domains/index.js';
import { lifecycleNowOf } from './clock.js';
import { DomainKey, LivemodeKey, OperationTypeKey, OrgIdKey } from '../../temporal/searchAttributes.js';
import { domainChangedSignal, domainMovedSignal, testClockAdvancedSignal, type DomainLifecycleDurations } from './domainLifecycle.contract.js';
import type { Workflows } from '../../workflows.js';

const DAY_MS = 86_400_000;

/** The real durations of a domain's life (docs/api-guide.md, Operations and workflows); tests move test clocks instead. */
export const LIFECYCLE_DURATIONS: DomainLifecycleDurations = {
  autoRenewLeadMs: 30 * DAY_MS,
  autoRenewRetryMs: DAY_MS,
  noticeLeadsMs: [30 * DAY_MS, 7 * DAY_MS, DAY_MS],
  graceMs: 30 * DAY_MS,
  renewalRecheckMs: 60 * 60_000,
};

/** The search attribute `OperationType` of lifecycle workflows, so operators can list them all. */
export const LIFECYCLE_OPERATION_TYPE = 'domain.lifecycle';

export function lifecycleWorkflowId(domainId: string): string {
  return `domain-lifecycle:${domainId}`;
}

export interface WatchDomainProps {
  temporal: { client: Client };
  config: Pick<Config, 'temporal'>;
  domain: Pick<Domain, 'id' | 'orgId' | 'livemode' | 'name' | 'status' | 'clockOffsetDays'>;
  /** Why it is told to look again; shows in the workflow's history. */
  reason: string;
  /** A test-clock advance rather than a change of the domain. */
  clock?: boolean;
  /** The domain was moved to `domain.orgId` (src/features/domainMoves/): the running lifecycle takes the new organisation. */
  moved?: boolean;
  durations?: DomainLifecycleDurations;
  /** A lifecycle started by this call handles the steps due after this time; default the domain's "now". */
  watchFrom?: Date;
}

/**
 * Tells the domain's lifecycle workflow to look at the domain again, starting it if it is not
 * running (signal-with-start: one workflow per domain, whoever comes first). Only domains that are
 * ours (`active` or `expired`) have a lifecycle; anything else is left alone.
 */
export async function watchDomain(props: WatchDomainProps): Promise<void> {
  const { domain } = props;
  if (domain.status !== 'active' && domain.status !== 'expired') return;
  const options = {
    workflowId: lifecycleWorkflowId(domain.id),
    taskQueue: props.config.temporal.taskQueue,
    args: [
      {
        domainId: domain.id,
        orgId: domain.orgId,
        livemode: domain.livemode,
        name: domain.name,
        durations: props.durations ?? LIFECYCLE_DURATIONS,
        watchFrom: (props.watchFrom ?? lifecycleNowOf(domain)).getTime(),
      },
    ] as [
      Parameters<Workflows['domainLifecycleWorkflow']>[0],
    ],
    typedSearchAttributes: [
      { key: OrgIdKey, value: domain.orgId },
      { key: DomainKey, value: domain.name },
      { key: LivemodeKey, value: domain.livemode },
      { key: OperationTypeKey, value: LIFECYCLE_OPERATION_TYPE },
    ],
    memo: { summary: `Lifecycle of ${domain.name} (${domain.livemode ? 'live' : 'test'} mode, org ${domain.orgId})` },
  };
  if (props.clock) {
    await props.temporal.client.workflow.signalWithStart<Workflows['domainLifecycleWorkflow'], []>('domainLifecycleWorkflow', {
      ...options,
      signal: testClockAdvancedSignal,
      signalArgs: [],
    });
    return;
  }
  if (props.moved) {
    await props.temporal.client.workflow.signalWithStart<Workflows['domainLifecycleWorkflow'], [{ orgId: string }]>('domainLifecycleWorkflow', {
      ...options,
      signal: domainMovedSignal,
      signalArgs: [{ orgId: domain.orgId }],
    });
    return;
  }
  await props.temporal.client.workflow.signalWithStart<Workflows['domainLifecycleWorkflow'], [{ reason: string }]>('domainLifecycleWorkflow', {
    ...options,
    signal: domainChangedSignal,
    signalArgs: [{ reason: props.reason }],
  });
}

/** watchDomain as the domains feature is handed it (its settings: auto-renew turned on or off). */
export function lifecycleWatcher(deps: Pick<WatchDomainProps, 'temporal' | 'config'>): DomainWatcher {
  return { domainChanged: (domain, reason) => watchDomain({ temporal: deps.temporal, config: deps.config, domain, reason }) };
}
