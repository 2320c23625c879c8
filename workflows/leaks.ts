import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { mail } from './shared.js';
import type { LeakedKeyInput, LeakedKeyResult, LeakScanInput, LeakScanSummary } from './contract.js';

// Our own database and Redis: retry until they answer.
const keys = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});


// One attempt pages through all results, heartbeating its place; GitHub's rate limits set the retry delay.
const scanner = proxyActivities<Activities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '2 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 10, nonRetryableErrorTypes: ['GITHUB_REJECTED'] },
});

/**
 * A key found in public: a live key is revoked (every api process refuses it at once), a test key
 * is only reported; either way the owner is e-mailed what was found, where and when, and how to
 * replace the key. The workflow id (`revoke-key:<key_id>`) makes a repeated report a no-op, and
 * the e-mail's Message-ID derives from it, so a retried send is the same message.
 */
export async function revokeLeakedKeyWorkflow(input: LeakedKeyInput): Promise<LeakedKeyResult> {
  const { workflowId } = workflowInfo();
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
  return scanner.scanGithubForLeakedKeys({ query: input.query ?? 'svc_live_', perPage: input.perPage ?? 100 });
}
