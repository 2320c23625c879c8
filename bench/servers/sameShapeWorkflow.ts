/**
 * The floor for a registration: a workflow of the same shape whose steps do nothing. A test-mode
 * registration (src/flows/registerDomain/registerDomain.workflow.ts behind `local-bookkeeping`) runs a local activity
 * (markOperationRunning), an activity (registrarRegister), then two local ones (completeOperation,
 * createDnsZone): test/workflows/histories/register-succeeded-local-bookkeeping.json.
 * Deterministic code only; bundled by bench/servers/sameShapeWorker.ts.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { NoopActivities } from './sameShapeWorker.js';

export type Step = 'local' | 'activity';

const activity = proxyActivities<NoopActivities>({ startToCloseTimeout: '30 seconds' });
const local = proxyLocalActivities<NoopActivities>({ startToCloseTimeout: '30 seconds' });

/** The steps one after another, as registerDomainWorkflow runs its own. */
export async function sameShapeWorkflow(steps: Step[]): Promise<number> {
  for (const [i, step] of steps.entries()) await (step === 'local' ? local : activity).noop(i);
  return steps.length;
}
