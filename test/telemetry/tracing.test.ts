/**
 * Traces as an operator sees them in Jaeger: with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP
 * receiver on loopback, one registration is one trace, from the api's HTTP request through the
 * workflow start, the workflow and its activities to the registrar call and PostgreSQL; and the
 * request id of a 500 leads to its trace through the log line that carries both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorkflowCode } from '@temporalio/worker';
import { startTestApp, testConfig, type TestApp } from '../support/testApp.js';
import { dnsCustomer, registerTestDomain } from '../support/domains.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';
import { startTracing, WORKFLOW_TRACING_INTERCEPTORS, type Tracing } from '../../src/telemetry/tracing.js';
import { WORKFLOWS_PATH } from '../../src/worker/worker.js';
import { defineRoute } from '../../src/http/route.js';

let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let tracing: Tracing;
let app: TestApp;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'domain-service-test' };
  tracing = startTracing((await testConfig(env)).tracing)!;
  // What the worker bundles by itself when tracing is on (src/telemetry/tracing.ts).
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: [WORKFLOW_TRACING_INTERCEPTORS], logger: { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} } });
  app = await startTestApp({
    worker: true,
    workflowBundle: { code: bundle.code },
    env: { ...env, LOG_LEVEL: 'info' },
    logDestination: { write: (line) => void logLines.push(JSON.parse(line) as Record<string, unknown>) },
    extraRoutes: [
      defineRoute({ method: 'get', path: '/test/boom', operationId: 'boom', summary: 'fails', tags: ['test'], scope: 'public', responses: { 200: { description: 'never' } }, hidden: true, handler: () => {
        throw new Error('a bug');
      } }),
    ],
  });
}, 180_000);
afterAll(async () => {
  await app?.close();
  await tracing?.shutdown();
  await receiver?.close();
});

async function spansOfTrace(traceId: string, until: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  for (let i = 0; i < 100; i += 1) {
    await tracing.flush();
    const spans = receiver.spans.filter((s) => s.traceId === traceId);
    if (until(spans)) return spans;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return receiver.spans.filter((s) => s.traceId === traceId);
}

describe('traces over OTLP', () => {
  it('follows a registration from the HTTP request through the workflow and activities to the registrar and PostgreSQL', async () => {
    const c = await dnsCustomer(app, 'test');
    await registerTestDomain(app, c);
    await tracing.flush();
    const request = receiver.spans.find((s) => s.name === 'POST /api/v1/orgs/{org_oid}/domains' && s.kind === 2);
    expect(request, 'the server span of the registration, named by its route').toBeDefined();
    const names = (spans: ReceivedSpan[]) => spans.map((s) => s.name);
    // The workflow's own span is exported when its run ends, after the activities' spans: wait for it too.
    const spans = await spansOfTrace(
      request!.traceId,
      (found) =>
        names(found).includes('registrar register') &&
        names(found).includes('RunWorkflow:registerDomainWorkflow') &&
        names(found).some((n) => n.startsWith('RunActivity:completeOperation')),
    );
    const spanNames = names(spans);
    console.log(`one registration's trace ${request!.traceId}: ${spans.length} spans\n  ${[...new Set(spanNames)].join('\n  ')}`);
    expect(spanNames).toContain('StartWorkflow:registerDomainWorkflow');
    expect(spanNames).toContain('RunWorkflow:registerDomainWorkflow');
    expect(spanNames.filter((n) => n.startsWith('StartActivity:')).length).toBeGreaterThan(0);
    expect(spanNames.filter((n) => n.startsWith('RunActivity:')).length).toBeGreaterThan(1);
    expect(spanNames).toContain('registrar register');
    expect(spans.some((s) => s.attributes['db.system'] === 'postgresql')).toBe(true);
    expect(spans.some((s) => s.attributes['db.system'] === 'redis')).toBe(true);
    // One tree: every span but the root has its parent in the trace.
    const ids = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => s.parentSpanId && !ids.has(s.parentSpanId));
    // The root is the test's own fetch (a client span) or the server span.
    expect(orphans.length).toBeLessThanOrEqual(1);
    // The registrar call runs inside an activity.
    const registrar = spans.find((s) => s.name === 'registrar register')!;
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const ancestors: string[] = [];
    for (let at = byId.get(registrar.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) ancestors.push(at.name);
    expect(ancestors.some((n) => n.startsWith('RunActivity:'))).toBe(true);
    expect(ancestors).toContain('RunWorkflow:registerDomainWorkflow');
    expect(ancestors).toContain('POST /api/v1/orgs/{org_oid}/domains');
  });

  it('logs a 500 with its request id and trace id together, and every request line carries the trace id', async () => {
    const res = await app.fetch('/test/boom');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { detail: string };
    const requestId = res.headers.get('x-request-id')!;
    expect(body.detail).toContain(requestId);
    const failed = logLines.find((l) => l.msg === 'request failed' && l.requestId === requestId);
    expect(failed?.traceId).toMatch(/^[0-9a-f]{32}$/);
    const requestLine = logLines.find((l) => l.msg === 'request' && l.requestId === requestId);
    expect(requestLine?.traceId).toBe(failed!.traceId);
    await tracing.flush();
    expect(receiver.spans.some((s) => s.traceId === failed!.traceId && s.name.startsWith('GET'))).toBe(true);
  });
});
