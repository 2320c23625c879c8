import type { PlatformDeps } from '../../platformDeps.js';
import type { Logger } from '../../logger.js';
import { withLifecycleState, type AutoRenewStep, type StepRef, type LifecycleStepResult } from '../../features/lifecycle/index.js';
import { autoRenewDomain } from './autoRenew.js';

export type AutoRenewActivityDeps = Pick<PlatformDeps, 'db' | 'temporal' | 'config' | 'registrars' | 'payloadKeys'> & { logger: Logger };

/** The lifecycle's auto-renewal step (src/features/lifecycle/domainLifecycle.workflow.ts): a renewal, paid from the balance. */
export function createAutoRenewActivities(deps: AutoRenewActivityDeps): AutoRenewStep {
  const { db, logger } = deps;
  return {
    async autoRenewDomain(input: StepRef & { attemptAt: string }): Promise<LifecycleStepResult> {
      const outcome = await autoRenewDomain({ deps, ...input });
      logger.info({ domainId: input.domainId, ...outcome }, 'auto-renewal attempt');
      return withLifecycleState(db, input, outcome);
    },
  };
}
