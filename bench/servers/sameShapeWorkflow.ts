/**
 * The floor for a registration: a workflow of the same shape (bench/servers/sameShapeWorker.ts says
 * which), whose activities do nothing. Deterministic code only; bundled by the worker.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { NoopActivities } from './sameShapeWorker.js';

const { noop } = proxyActivities<NoopActivities>({ startToCloseTimeout: '30 seconds' });

/** `steps` activities one after another, as registerDomainWorkflow runs its own. */
export async function sameShapeWorkflow(steps: number): Promise<number> {
  for (let i = 0; i < steps; i += 1) await noop(i);
  return steps;
}
