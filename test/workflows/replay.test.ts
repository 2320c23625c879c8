import { describe, expect, it } from 'vitest';
import { Worker } from '@temporalio/worker';
import { sharedWorkflowBundle } from '../support/testApp.js';
import { storedHistories } from '../support/histories.js';
import type { Workflows } from '../../src/workflows.js';

/**
 * Every workflow type the worker runs; the type makes adding a workflow without naming it here a
 * compile error, and the test below then asks for a recorded history of it.
 */
const WORKFLOW_TYPES: Record<keyof Workflows, true> = {
  registerDomainWorkflow: true,
  renewDomainWorkflow: true,
  transferDomainWorkflow: true,
  syncRegistrarContactWorkflow: true,
  revokeLeakedKeyWorkflow: true,
  leakScanWorkflow: true,
  reconcileOperationsWorkflow: true,
  registrarReconcileWorkflow: true,
  purgeIdempotencyKeysWorkflow: true,
  deliverWebhookWorkflow: true,
  deliverEndpointWebhooksWorkflow: true,
  dispatchEventsWorkflow: true,
  purgeEventsWorkflow: true,
  domainLifecycleWorkflow: true,
  enableDnssecWorkflow: true,
  disableDnssecWorkflow: true,
  purgeAuditEventsWorkflow: true,
};

/**
 * Histories recorded from real runs of earlier code (test/workflows/histories/, written by the
 * tests that call recordHistory with RECORD_HISTORIES=1) replay on today's workflow code: a change
 * that would break workflows already running in production fails here. Record a new history when
 * you add a path; never re-record an old one to make this pass (use `patched()` instead).
 */
describe('recorded workflow histories', () => {
  it('exist for every workflow type', async () => {
    const recorded = new Set((await storedHistories()).map((h) => h.workflowType));
    expect(Object.keys(WORKFLOW_TYPES).filter((type) => !recorded.has(type))).toEqual([]);
  });

  it('all replay on the current workflow code', { timeout: 120_000 }, async () => {
    const stored = await storedHistories();
    const failures: string[] = [];
    const results = Worker.runReplayHistories(
      { workflowBundle: sharedWorkflowBundle() },
      stored.map(({ name, history }) => ({ workflowId: name, history })),
    );
    let replayed = 0;
    for await (const result of results) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(stored.length);
  });
});
