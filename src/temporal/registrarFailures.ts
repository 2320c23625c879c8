import { ApplicationFailure } from '@temporalio/activity';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/registry.js';
import { RegistrarAccountError } from '../registrar/errors.js';
import { asActivityFailure } from './activityFailures.js';

/** Where a registrar's refusal of our account is told to the operator: an error log line and a counter. */
export interface AccountProblemReport {
  logger: Logger;
  metrics: Pick<Metrics, 'registrarAccountErrors'>;
}

/** Polls may go on while the operator fixes the registrar account; a minute between tries is plenty. */
const ACCOUNT_PROBLEM_RETRY = '60s';

/**
 * Registrar errors as Temporal sees them (asActivityFailure, ./activityFailures.ts), except that
 * credential, scope and billing refusals (RegistrarAccountError) are logged for the operator with
 * the upstream text; a submission then fails (nothing happened upstream), a poll keeps retrying
 * (the work upstream goes on whatever our token can see).
 */
export function asRegistrarFailure(err: unknown, { logger, metrics }: AccountProblemReport, during: 'submit' | 'poll'): unknown {
  if (err instanceof RegistrarAccountError) {
    metrics.registrarAccountErrors.inc({ adapter: err.adapter, status: String(err.upstreamStatus) });
    logger.error({ upstreamStatus: err.upstreamStatus, upstream: err.operatorDetail, during }, 'registrar refused our account: credentials, scopes or billing need the operator');
    const message = err.message;
    return during === 'poll'
      ? ApplicationFailure.create({ type: err.code, message, nextRetryDelay: ACCOUNT_PROBLEM_RETRY })
      : ApplicationFailure.nonRetryable(message, err.code);
  }
  return asActivityFailure(err);
}

/**
 * A registrar call outside the paid path (delegation, contact changes, the account's domain list),
 * its errors turned into Temporal failures; an account problem is retried until the operator acts.
 */
export async function callRegistrar<T>(report: AccountProblemReport, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asRegistrarFailure(err, report, 'poll');
  }
}
