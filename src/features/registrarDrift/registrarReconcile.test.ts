/**
 * Reconciliation of our live domains with the registrar account's domain list, against the
 * DNSimple-shaped double (GET /v2/{account}/domains, paginated as fixtures/v2/api/listDomains).
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Worker } from '@temporalio/worker';
import { startTestApp, sharedWorkflowBundle, type TestApp } from '../../../test/support/testApp.js';
import { createOrg, sessionToken, uniqueEmail } from '../../../test/support/actors.js';
import { insertActiveDomain } from '../../../test/support/domains.js';
import { FakeDnsimple, registrarEnv } from '../../../test/support/fakeDnsimple.js';
import { findDomainOfOrg, updateDomain } from '../domains/domains.repository.js';
import { listAuditEventsForTarget } from '../../audit/auditEvents.js';
import { ensureTestSchedules } from '../../../test/support/schedules.js';
import { ensureSchedules, scheduleId as scheduleIdOf } from '../../worker/schedules.js';
import type { RegistrarReconcileSummary as ReconcileSummary } from './registrarDrift.contract.js';
import { randomBase62 } from '../../ids.js';
import { encryptedDataConverter } from '../../temporal/payloadCodec.js';
import { recordHistory } from '../../../test/support/histories.js';
import { modeOf } from '../../db/modeScope.js';

let dnsimple: FakeDnsimple;
let app: TestApp;
const logLines: Record<string, unknown>[] = [];
beforeAll(async () => {
  dnsimple = await FakeDnsimple.start();
  app = await startTestApp({
    worker: true,
    env: { ...registrarEnv(dnsimple), LOG_LEVEL: 'warn', REGISTRAR_RECONCILE_INTERVAL: '6h' },
    logDestination: { write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
  });
});
afterAll(async () => {
  await app?.close();
  await dnsimple?.close();
});

const inYears = (years: number) => new Date(Date.now() + years * 365 * 86_400_000);
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A live domain of ours, active until `expiresAt`, and (unless `upstream` is false) the same at the double. */
async function liveDomain(orgId: string, label: string, props: { expiresAt: Date; upstream?: Partial<{ expiresAt: string; autoRenew: boolean }> | false }) {
  const name = `${label}-${randomBase62(8).toLowerCase()}.com`;
  await insertActiveDomain(app, { org: { id: orgId }, livemode: true }, { name });
  const domain = (await findDomainOfOrg(app.deps.db, modeOf(true), orgId, name))!;
  await updateDomain(app.deps.db, modeOf(true), domain.id, { expires_at: props.expiresAt });
  if (props.upstream !== false) {
    dnsimple.setDomain(name, { held: 'registered', available: false, expiresAt: iso(props.expiresAt), ...props.upstream });
  }
  return { name, id: domain.id };
}

async function reconcile(perPage: number): Promise<{ summary: ReconcileSummary; workflowId: string }> {
  const workflowId = `reconcile-test-${randomBase62(8)}`;
  const summary = await app.deps.temporal.client.workflow.execute('registrarReconcileWorkflow', {
    workflowId,
    taskQueue: app.deps.config.temporal.taskQueue,
    args: [{ perPage }],
  });
  return { summary: summary as ReconcileSummary, workflowId };
}

describe('registrar reconciliation', () => {
  it('reports each kind of drift across several pages in the result, the audit table and the log, and changes nothing', async () => {
    const org = await createOrg(app, await sessionToken(app, uniqueEmail('reconcile')));
    const expires = inYears(1);
    const inStep = await liveDomain(org.id, 'in-step', { expiresAt: expires });
    const renewedElsewhere = await liveDomain(org.id, 'expiry', { expiresAt: expires, upstream: { expiresAt: iso(inYears(2)) } });
    const autoRenewing = await liveDomain(org.id, 'autorenew', { expiresAt: expires, upstream: { autoRenew: true } });
    const missing = await liveDomain(org.id, 'missing', { expiresAt: expires, upstream: false });
    const stranger = `stranger-${randomBase62(8).toLowerCase()}.com`;
    dnsimple.setDomain(stranger, { held: 'registered', available: false, expiresAt: iso(inYears(1)) });
    const zoneOnly = `zone-only-${randomBase62(8).toLowerCase()}.com`;
    dnsimple.setDomain(zoneOnly, { held: 'hosted' });
    const listsBefore = dnsimple.requestsTo('GET', '/v2/1010/domains').length;

    const { summary } = await reconcile(2);

    // Six entries upstream at two a page: every page was read.
    const listed = dnsimple.requestsTo('GET', '/v2/1010/domains').slice(listsBefore);
    expect(listed.map((r) => new URLSearchParams(r.query).get('page'))).toEqual(['1', '2', '3']);
    expect(summary.pages).toBe(3);
    expect(summary.names.expiry_mismatch).toEqual([renewedElsewhere.name]);
    expect(summary.names.auto_renew_on).toEqual([autoRenewing.name]);
    expect(summary.names.unknown_upstream).toEqual([stranger]);
    expect(summary.names.missing_upstream).toContain(missing.name);
    const all = Object.values(summary.names).flat();
    expect(all).not.toContain(inStep.name);
    expect(all).not.toContain(zoneOnly);

    const auditOf = async (id: string) => (await listAuditEventsForTarget(app.deps.db, 'domain', id)).map((e) => ({ action: e.action, kind: e.data?.kind }));
    expect(await auditOf(renewedElsewhere.id)).toEqual([{ action: 'registrar.drift', kind: 'expiry_mismatch' }]);
    expect(await auditOf(autoRenewing.id)).toEqual([{ action: 'registrar.drift', kind: 'auto_renew_on' }]);
    expect(await auditOf(missing.id)).toEqual([{ action: 'registrar.drift', kind: 'missing_upstream' }]);
    expect(await auditOf(stranger)).toEqual([{ action: 'registrar.drift', kind: 'unknown_upstream' }]);
    expect(await auditOf(inStep.id)).toEqual([]);

    const driftLines = logLines.filter((l) => l.msg === 'registrar drift');
    const lineOf = (name: string) => driftLines.filter((l) => l.domain === name).map((l) => ({ level: l.level, drift: l.drift }));
    expect(lineOf(missing.name)).toEqual([{ level: 50, drift: 'missing_upstream' }]);
    expect(lineOf(autoRenewing.name)).toEqual([{ level: 50, drift: 'auto_renew_on' }]);
    expect(lineOf(renewedElsewhere.name)).toEqual([{ level: 40, drift: 'expiry_mismatch' }]);
    expect(lineOf(stranger)).toEqual([{ level: 40, drift: 'unknown_upstream' }]);

    // Reports only: our domain keeps its expiry, and nothing was sent to the registrar but reads.
    const after = (await findDomainOfOrg(app.deps.db, modeOf(true), org.id, renewedElsewhere.name))!;
    expect(after.expiresAt?.getTime()).toBe(expires.getTime());
    expect(after.status).toBe('active');
    expect(dnsimple.requests.slice(listsBefore).filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('retries a registrar outage in the middle of the list and reports once', async () => {
    const org = await createOrg(app, await sessionToken(app, uniqueEmail('reconcile-retry')));
    const drifted = await liveDomain(org.id, 'retry-expiry', { expiresAt: inYears(1), upstream: { expiresAt: iso(inYears(3)) } });
    dnsimple.fail({ method: 'GET', path: '/v2/1010/domains', times: 1 }, { status: 503, headers: { 'retry-after': '1' } });
    const { summary, workflowId } = await reconcile(100);
    expect(summary.names.expiry_mismatch).toContain(drifted.name);
    expect((await listAuditEventsForTarget(app.deps.db, 'domain', drifted.id)).map((e) => e.data?.kind)).toEqual(['expiry_mismatch']);

    const history = await app.deps.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: sharedWorkflowBundle(), dataConverter: encryptedDataConverter(app.deps.payloadKeys) }, history, workflowId)).resolves.toBeUndefined();
    await recordHistory(app, workflowId, 'registrar-reconcile');
  });

  it('is scheduled per task queue at the configured interval, idempotently', async () => {
    const { client } = app.deps.temporal;
    const scheduleId = scheduleIdOf('registrar-reconcile', app.deps.config);
    expect(scheduleId).toBe(`registrar-reconcile:${app.deps.config.temporal.taskQueue}`);
    const ensured = await ensureTestSchedules(client, app.deps.config);
    onTestFinished(ensured.remove);
    await ensureSchedules(client, app.deps.config);
    const description = await client.schedule.getHandle(scheduleId).describe();
    expect(description.spec.intervals).toMatchObject([{ every: 6 * 3_600_000 }]);
    expect(description.action).toMatchObject({ workflowType: 'registrarReconcileWorkflow', taskQueue: app.deps.config.temporal.taskQueue });
  });
});
