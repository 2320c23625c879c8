import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Db } from '../../db/pool.js';
import type { Metrics } from '../../metrics/registry.js';
import { insertAuditEvent } from '../../audit/auditEvents.js';
import { listLiveDomainsToReconcile } from '../domains/index.js';
import type { RegistrarDomain } from '../../registrar/port.js';
import { findDrift } from './registrarDrift.js';
import type { RegistrarReconcileSummary } from './registrarDrift.contract.js';
import type { Registrars } from '../../registrar/registrars.js';
import { callRegistrar, type AccountProblemReport } from '../../temporal/registrarFailures.js';

export interface ReconcileActivityDeps extends AccountProblemReport {
  db: Db;
  metrics: Pick<Metrics, 'registrarAccountErrors' | 'registrarDrift'>;
  registrars: Registrars;
}


export function createRegistrarDriftActivities({ db, logger, metrics, registrars }: ReconcileActivityDeps) {
  return {
    /**
     * Reads the registrar account's whole domain list, page by page (heartbeating its progress; a
     * retry starts over, since a list that changed meanwhile must be read whole), compares it with our live domains and reports each drift: an error or warning
     * log line, one audit event (its id derives from the workflow run, so a retry writes none
     * twice) and, once the whole comparison is written, the drift counter. It changes no domain and moves no money.
     */
    async reconcileRegistrarDomains(input: { perPage: number; maxPages: number }): Promise<RegistrarReconcileSummary> {
      const ctx = Context.current();
      const account = await registrars.liveAccount();
      const upstream: RegistrarDomain[] = [];
      let page = 1;
      for (let totalPages = 1; page <= totalPages; page++) {
        if (page > input.maxPages) throw ApplicationFailure.nonRetryable(`The registrar account has more than ${input.maxPages} pages of domains`, 'RECONCILE_TOO_LARGE');
        const answer = await callRegistrar({ logger, metrics }, () => account.listDomains({ page, perPage: input.perPage }));
        upstream.push(...answer.domains);
        totalPages = answer.totalPages;
        ctx.heartbeat({ page, totalPages });
      }
      const ours = await listLiveDomainsToReconcile(db);
      const drifts = findDrift(ours, upstream);

      const runId = ctx.info.workflowExecution?.runId ?? ctx.info.activityId;
      const summary: RegistrarReconcileSummary = {
        pages: page - 1,
        upstreamDomains: upstream.length,
        ourDomains: ours.length,
        drift: { expiry_mismatch: 0, auto_renew_on: 0, unknown_upstream: 0, missing_upstream: 0 },
        names: {},
      };
      for (const drift of drifts) {
        summary.drift[drift.kind] += 1;
        (summary.names[drift.kind] ??= []).push(drift.name);
        await insertAuditEvent(db, {
          id: `evt_drift_${runId}_${drift.kind}_${drift.name}`,
          action: 'registrar.drift',
          actorUserId: null,
          actorKeyId: null,
          orgId: drift.domain?.orgId ?? null,
          targetType: 'domain',
          targetId: drift.domain?.id ?? drift.name,
          // The registrar account holds live domains only.
          livemode: true,
          data: { kind: drift.kind, name: drift.name, ours: drift.ours ?? null, upstream: drift.upstream ?? null },
          requestId: null,
        });
        // Money or a customer's domain at stake is an error; the rest is for an operator to look at.
        const line = { drift: drift.kind, domain: drift.name, ours: drift.ours, upstream: drift.upstream };
        if (drift.kind === 'missing_upstream' || drift.kind === 'auto_renew_on') logger.error(line, 'registrar drift');
        else logger.warn(line, 'registrar drift');
      }
      // Counted after every audit row is in: an attempt that failed midway and is retried counts once.
      for (const [kind, count] of Object.entries(summary.drift)) if (count > 0) metrics.registrarDrift.inc({ kind }, count);
      logger.info({ ...summary, names: undefined }, 'registrar reconciliation finished');
      return summary;
    },
  };
}

export type RegistrarDriftActivities = ReturnType<typeof createRegistrarDriftActivities>;
