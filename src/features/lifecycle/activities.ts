import { ApplicationFailure } from '@temporalio/activity';
import type { PlatformDeps } from '../../platformDeps.js';
import type { Logger } from '../../logger.js';
import type { Db } from '../../db/pool.js';
import { findDomainNotice, markDomainNoticeMailed } from './domainNotices.repository.js';
import { domainNoticeMail } from './domainNotice.mail.js';
import { MailRejectedError, type Mailer } from '../../mail/mailer.js';
import { deleteExpiredDomain, expireDomain, readLifecycleState, recordExpiringNotice } from './steps.js';
import type { DomainLifecycleState, LifecycleStepOutcome, LifecycleStepResult } from './domainLifecycle.contract.js';
import { modeOf } from '../../db/modeScope.js';

export type LifecycleActivityDeps = Pick<PlatformDeps, 'db'> & { logger: Logger; mailer: Mailer };

export interface StepRef {
  domainId: string;
  livemode: boolean;
  cycleExpiresAt: string;
}

/** A step's outcome with the domain's lifecycle state as it is after the step. */
/**
 * The auto-renewal step the lifecycle workflow runs: a paid renewal, so it is implemented by the
 * auto-renew flow (src/flows/autoRenew/activities.ts), which the worker registers beside these.
 */
export interface AutoRenewStep {
  autoRenewDomain(input: StepRef & { attemptAt: string }): Promise<LifecycleStepResult>;
}

export async function withLifecycleState(db: Db, input: StepRef, outcome: LifecycleStepOutcome): Promise<LifecycleStepResult> {
  return { ...outcome, state: await readLifecycleState(db, modeOf(input.livemode), input.domainId) };
}

/**
 * The steps of a domain's life (src/features/lifecycle/domainLifecycle.workflow.ts); each checks the
 * domain again itself. Its auto-renewal is a paid operation: src/flows/autoRenew/activities.ts.
 */
export function createLifecycleActivities(deps: LifecycleActivityDeps) {
  const { db, logger, mailer } = deps;
  const withState = (input: StepRef, outcome: LifecycleStepOutcome) => withLifecycleState(db, input, outcome);
  return {
    async readDomainLifecycle(input: { domainId: string; livemode: boolean }): Promise<DomainLifecycleState | null> {
      return readLifecycleState(db, modeOf(input.livemode), input.domainId);
    },

    async recordExpiringNotice(input: StepRef & { at: string; daysLeft: number }): Promise<LifecycleStepResult> {
      return withState(input, await recordExpiringNotice({ db, ...input }));
    },

    async expireDomain(input: StepRef & { graceMs: number }): Promise<LifecycleStepResult> {
      return withState(input, await expireDomain({ db, ...input }));
    },

    async deleteExpiredDomain(input: StepRef & { graceMs: number }): Promise<LifecycleStepResult> {
      return withState(input, await deleteExpiredDomain({ db, ...input }));
    },

    /**
     * E-mails a recorded notice to the owners and admins it names, once: a notice already mailed is
     * skipped, and a retry after a partial send sends the same messages (Message-IDs derive from the
     * notice and the address), which mail systems recognise as one.
     */
    async mailDomainNotice(input: { noticeId: string; livemode: boolean }): Promise<{ sent: number }> {
      const mode = modeOf(input.livemode);
      const notice = await findDomainNotice(db, mode, input.noticeId);
      if (!notice) throw ApplicationFailure.nonRetryable(`Notice ${input.noticeId} does not exist`, 'NOTICE_NOT_FOUND');
      if (notice.mailedAt) return { sent: 0 };
      for (const to of notice.facts.recipients) {
        try {
          await mailer.send(domainNoticeMail({ noticeId: notice.id, kind: notice.kind, facts: notice.facts, livemode: notice.livemode, recordedAt: notice.createdAt, to }));
        } catch (err) {
          if (err instanceof MailRejectedError) {
            // One bad address must not keep the others from being told.
            logger.error({ noticeId: notice.id, to: to.email, err: err.message }, 'a domain notice was refused by the SMTP server');
            continue;
          }
          throw err;
        }
      }
      await markDomainNoticeMailed(db, mode, notice.id);
      return { sent: notice.facts.recipients.length };
    },
  };
}

export type LifecycleActivities = ReturnType<typeof createLifecycleActivities>;
