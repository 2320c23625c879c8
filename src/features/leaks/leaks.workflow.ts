import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { LeakActivities } from './activities.js';
import { LEAK_RESPONSE_RETRIES, type LeakedKeyInput, type LeakedKeyResult, type LeakScanInput, type LeakScanSummary } from './leaks.contract.js';
import { SCHEDULED_RETRIES } from '../../temporal/retries.contract.js';
import { retryPolicy } from '../../temporal/retries.workflow.js';

/**
 * A key found in public: a live key is revoked (every api process refuses it at once), a test key
 * is only reported; either way the owner is e-mailed what was found, where and when, and how to
 * replace the key. The workflow id (`revoke-key:<key_id>`) makes a repeated report a no-op, and
 * the e-mail's Message-ID derives from it, so a retried send is the same message.
 */
export async function revokeLeakedKeyWorkflow(input: LeakedKeyInput): Promise<LeakedKeyResult> {
  const { workflowId } = workflowInfo();
  const retries = { ...LEAK_RESPONSE_RETRIES, ...input.retries };
  const keys = proxyActivities<LeakActivities>({ startToCloseTimeout: '30 seconds', retry: retryPolicy(retries.keys) });
  // A 5xx refusal (bad address) is final.
  const mail = proxyActivities<LeakActivities>({ startToCloseTimeout: '1 minute', retry: retryPolicy(retries.mail, ['MAIL_REJECTED']) });
  const handled = await keys.handleLeakedKey({ keyId: input.keyId, sourceUrl: input.sourceUrl, source: input.source, workflowId });
  if (handled.outcome === 'gone' || !handled.notice) return { outcome: handled.outcome, notified: false, messageId: null };
  const sent = await mail.sendLeakedKeyNotice({
    ...handled.notice,
    outcome: handled.outcome,
    sourceUrl: input.sourceUrl,
    source: input.source,
    foundAt: input.foundAt,
    workflowId,
  });
  return { outcome: handled.outcome, notified: true, messageId: sent.messageId };
}

/** Run by the `leak-scan` schedule: searches public code for live keys and hands each active one found to a leak workflow. */
export async function leakScanWorkflow(input: LeakScanInput = {}): Promise<LeakScanSummary> {
  // One attempt pages through all results, heartbeating its place.
  const scanner = proxyActivities<LeakActivities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '2 minutes',
    retry: retryPolicy(input.retry ?? SCHEDULED_RETRIES.leakScanWorkflow, ['GITHUB_REJECTED']),
  });
  return scanner.scanGithubForLeakedKeys({ query: input.query ?? 'svc_live_', perPage: input.perPage ?? 100 });
}
