import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config.js';

export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Sends what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

let active: Tracing | undefined;

const require = createRequire(import.meta.url);

/** The Temporal workflow interceptors, bundled into the workflow code when tracing is on. */
export const WORKFLOW_TRACING_INTERCEPTORS = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/**
 * Turns tracing on for this process when OTEL_EXPORTER_OTLP_ENDPOINT is set, and does nothing
 * otherwise (no provider, no instrumentation: the OpenTelemetry API stays a no-op). Spans go over
 * OTLP/HTTP (JSON) to `<endpoint>/v1/traces` in batches. Call before the service starts; once per process.
 */
export function startTracing(tracing: Config['tracing'], attributes: Record<string, string> = {}): Tracing | undefined {
  if (!tracing || active) return active;
  const resource = new Resource({ 'service.name': tracing.serviceName, ...attributes });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${tracing.endpoint.replace(/\/$/, '')}/v1/traces` }), {
    scheduledDelayMillis: 1_000,
  });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global provider, AsyncLocalStorage context and W3C trace-context propagation.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Incoming api requests (the server span every other span of a request hangs under); the metrics
      // listener and health probes are left out.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/metrics' || req.url === '/healthz' }),
      // fetch: the registrar, the DNS provider and GitHub.
      new UndiciInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  // These patch on `require`; our ES imports of CommonJS packages share require's cache, so requiring
  // them here patches the very objects the rest of the process uses.
  for (const name of ['node:http', 'pg']) require(name);
  active = {
    resource,
    spanProcessor,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      active = undefined;
    },
  };
  return active;
}

/** The process's tracing, when on. */
export function activeTracing(): Tracing | undefined {
  return active;
}

/** Client interceptors that start a span per workflow start, signal or update and carry its context in the headers. */
export function tracingClientInterceptors(): { workflow: OpenTelemetryWorkflowClientInterceptor[] } | undefined {
  return active ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/**
 * What a worker adds when tracing is on: spans for each activity (children of the workflow's, which
 * the workflow interceptors make inside the sandbox and hand out through the `exporter` sink).
 * A pre-built bundle must have been bundled with WORKFLOW_TRACING_INTERCEPTORS.
 */
export function workerTracingOptions(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (!active) return {};
  return {
    interceptors: {
      workflowModules: [WORKFLOW_TRACING_INTERCEPTORS],
      activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })],
    },
    sinks: { exporter: makeWorkflowExporter(active.spanProcessor, active.resource) },
  };
}
